"""l1 / l2 / l1_l2 regularizers (``layers/options/regularizers.py``): penalties with Keras'
defaults, gradients, serialization and unknown names."""

import numpy as np
import pytest

import lamina
from lamina import regularizers


W = np.array([[1.0, -2.0], [0.5, 0.0]], dtype="float32")


def _penalty(reg):
    return float(reg(lamina.Variable(W)).numpy())


def test_regularizer_values_and_keras_defaults():
    assert _penalty(regularizers.get("l1")) == pytest.approx(0.01 * 3.5)
    assert _penalty(regularizers.get("l2")) == pytest.approx(0.01 * 5.25)
    assert _penalty(regularizers.L1(0.1)) == pytest.approx(0.35)
    assert _penalty(regularizers.L2(0.2)) == pytest.approx(1.05)
    assert _penalty(regularizers.L1L2(l1=0.1, l2=0.2)) == pytest.approx(0.35 + 1.05)
    assert _penalty(regularizers.get({"class_name": "L1L2", "config": {"l1": 1.0}})) \
        == pytest.approx(3.5)
    assert regularizers.get(None) is None
    assert regularizers.serialize(regularizers.L2(0.5)) == {"class_name": "L2",
                                                            "config": {"l2": 0.5}}


def test_regularizer_gradient():
    variable = lamina.Variable(W)
    penalty = regularizers.L1L2(l1=0.1, l2=0.2)(variable)
    gradient = lamina.grad(penalty, [variable])[0].numpy()
    np.testing.assert_allclose(gradient, 0.1 * np.sign(W) + 0.4 * W, rtol=1e-6)


def test_unknown_regularizer_lists_known_names():
    with pytest.raises(ValueError) as info:
        regularizers.get("l3")
    assert "l3" in str(info.value) and "l1_l2" in str(info.value)


def test_lower_case_regularizers_are_the_keras_classes():
    assert regularizers.l1 is regularizers.L1 and regularizers.l2 is regularizers.L2
    assert regularizers.l1_l2 is regularizers.L1L2
    assert regularizers.orthogonal_regularizer is regularizers.OrthogonalRegularizer
    assert _penalty(regularizers.l2(0.01)) == pytest.approx(0.01 * 5.25)
    assert _penalty(regularizers.l1_l2(l1=0.1, l2=0.2)) == pytest.approx(0.35 + 1.05)
    layer = lamina.layers.Dense(2, kernel_regularizer=regularizers.l2(0.01))
    assert layer.get_config()["kernel_regularizer"] == {"class_name": "L2",
                                                        "config": {"l2": 0.01}}


def test_orthogonal_regularizer_matches_keras():
    # w = arange(12).reshape(3, 4) / 10 - 0.5, Keras 3.15:
    #   float(keras.regularizers.OrthogonalRegularizer(0.1, "rows")(w))    -> 0.052617643
    #   float(keras.regularizers.OrthogonalRegularizer(0.2, "columns")(w)) -> 0.174153700
    w = np.arange(12, dtype="float32").reshape(3, 4) / 10 - 0.5
    rows = regularizers.OrthogonalRegularizer(0.1, "rows")
    columns = regularizers.orthogonal_regularizer(factor=0.2, mode="columns")
    assert float(rows(lamina.Variable(w)).numpy()) == pytest.approx(0.052617643, rel=1e-6)
    assert float(columns(lamina.Variable(w)).numpy()) == pytest.approx(0.1741537, rel=1e-6)
    assert regularizers.serialize(columns) == {"class_name": "OrthogonalRegularizer",
                                               "config": {"factor": 0.2, "mode": "columns"}}
    with pytest.raises(ValueError, match="rank 2"):
        rows(np.ones((2, 2, 2), dtype="float32"))
    with pytest.raises(ValueError, match="mode"):
        regularizers.OrthogonalRegularizer(mode="diagonal")


def test_orthogonal_regularizer_gradient():
    from harness.ops import numerical_gradient
    w = np.random.default_rng(0).normal(size=(3, 4))
    reg = regularizers.OrthogonalRegularizer(0.3, "rows")
    variable = lamina.Variable(w.copy(), dtype="float64")
    (gradient,) = lamina.grad(reg(variable), [variable])
    expected = numerical_gradient(lambda: float(reg(lamina.Tensor(w)).numpy()), w)
    np.testing.assert_allclose(np.asarray(gradient), expected, rtol=1e-5, atol=1e-7)


def test_deserialize_keras3_regularizer():
    reg = regularizers.deserialize({"module": "keras.regularizers", "class_name": "L2",
                                    "config": {"l2": 0.02}, "registered_name": None})
    assert type(reg) is regularizers.L2 and reg.l2 == 0.02
    assert type(regularizers.deserialize("l1_l2")) is regularizers.L1L2

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

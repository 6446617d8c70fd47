"""The Normalization preprocessing layer (``layers/preprocessing/normalization.py``):
``adapt`` against Keras' examples, the formula with zero variance and batched data, errors,
gradients, configs (also after ``adapt``), shapes and models."""

import numpy as np
import pytest

from lamina import layers

from harness.layers import (  # noqa: F401  (the shared tests of CASES, collected here)
    test_config_round_trip_and_output_shape, test_gradients_match_finite_differences,
    test_inside_sequential_and_functional_models)

RNG = np.random.default_rng(19)


def rand(*shape):
    """Float64 data, uniform in [-1, 1)."""
    return RNG.uniform(-1.0, 1.0, size=shape)


def test_normalization_adapt_matches_keras_examples():
    data = np.array([[0.0, 7.0, 4.0], [2.0, 9.0, 6.0], [0.0, 7.0, 4.0], [2.0, 9.0, 6.0]],
                    dtype="float32")
    layer = layers.Normalization(axis=-1)
    layer.adapt(data)
    np.testing.assert_allclose(layer(np.array([[0.0, 7.0, 4.0]], "float32")).numpy(),
                               [[-1.0, -1.0, -1.0]], atol=1e-6)
    assert [w.name for w in layer.weights] == ["mean", "variance", "count"]
    assert layer.trainable_weights == []
    np.testing.assert_allclose(layer.get_weights()[0], [1.0, 8.0, 5.0])
    assert int(layer.get_weights()[2]) == 4

    scalar = layers.Normalization(axis=None)
    scalar.adapt(np.array([1.0, 2.0, 3.0, 4.0, 5.0], dtype="float32"))
    np.testing.assert_allclose(scalar(np.array([1.0, 2.0, 3.0], "float32")).numpy(),
                               [-1.4142135, -0.70710677, 0.0], atol=1e-6)

    given = layers.Normalization(mean=3.0, variance=2.0)
    np.testing.assert_allclose(given(np.array([[1.0], [2.0], [3.0]], "float32")).numpy(),
                               [[-1.4142135], [-0.70710677], [0.0]], atol=1e-6)

    inverse = layers.Normalization(axis=-1, invert=True)
    inverse.adapt(data)
    np.testing.assert_allclose(inverse(np.array([[1.0, 2.0, 3.0]], "float32")).numpy(),
                               [[2.0, 10.0, 8.0]], atol=1e-6)


def test_normalization_formula_with_zero_variance_and_batches():
    data = rand(50, 4, 3) * 3 + 1
    data[..., 2] = 7.0  # constant feature: divided by max(sqrt(0), 1e-7)
    whole = layers.Normalization()
    whole.adapt(data.astype("float32"))
    batched = layers.Normalization()
    batched.adapt(iter([data[:7], data[7:30], data[30:]]))
    for a, b in zip(whole.get_weights(), batched.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    mean = data.mean(axis=(0, 1))
    std = np.maximum(np.sqrt(data.var(axis=(0, 1))), 1e-7)
    np.testing.assert_allclose(whole(data.astype("float32")).numpy(), (data - mean) / std,
                               rtol=1e-4, atol=1e-4)
    # set_weights (as loading a file) is used by the next call.
    whole.set_weights([np.zeros(3), np.full(3, 4.0), np.array(1)])
    np.testing.assert_allclose(whole(np.ones((1, 1, 3), "float32")).numpy(), 0.5)


def test_normalization_errors():
    with pytest.raises(ValueError, match="Layer 'norm0' .*both mean and variance"):
        layers.Normalization(mean=1.0, name="norm0")
    layer = layers.Normalization(name="norm1")
    layer.adapt(rand(10, 3))
    with pytest.raises(ValueError, match="Layer 'norm1' .*shape"):
        layer.adapt(rand(10, 4))
    with pytest.raises(ValueError, match="Layer 'norm2' .*adapt"):
        layers.Normalization(mean=0.0, variance=1.0, name="norm2").adapt(rand(3, 2))


# ------------------------------------------------------------------ shared checks
CASES = [
    (lambda: layers.Normalization(mean=[1.0, 2.0, 3.0], variance=[1.0, 4.0, 0.25]), (4, 3)),
]
CASE_IDS = ["normalization"]


def test_adapted_normalization_config_round_trip(check_config):
    layer = layers.Normalization()
    layer.adapt(rand(20, 3) * 4)
    clone = check_config(layer, rand(5, 3).astype("float32"))
    np.testing.assert_allclose(clone.get_weights()[1], layer.get_weights()[1])

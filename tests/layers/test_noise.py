"""Noise and regularization layers (``layers/noise.py``): SpatialDropout1D/2D/3D,
GaussianNoise, GaussianDropout, AlphaDropout and ActivityRegularization: behaviour,
gradients, configs, shapes and models."""

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.backends import Tensor

from harness.layers import (  # noqa: F401  (the shared tests of CASES, collected here)
    test_config_round_trip_and_output_shape, test_gradients_match_finite_differences,
    test_inside_sequential_and_functional_models)

RNG = np.random.default_rng(17)


def rand(*shape):
    return RNG.uniform(-1.0, 1.0, size=shape)


def upstream_gradient(layer, x, training):
    """(output, d sum(output * R) / d x, R) for a fixed random R."""
    x_tensor = Tensor(x, requires_grad=True)
    out = layer(x_tensor, training=training)
    upstream = RNG.standard_normal(out.shape)
    (gradient,) = lamina.grad(ops.sum(out * upstream), [x_tensor])
    return out.numpy(), gradient.numpy(), upstream


# ------------------------------------------------------------------ spatial dropout
@pytest.mark.parametrize("cls, shape, data_format", [
    (layers.SpatialDropout1D, (8, 5, 16), None),
    (layers.SpatialDropout2D, (8, 3, 4, 16), None),
    (layers.SpatialDropout3D, (8, 3, 2, 2, 16), None),
    (layers.SpatialDropout2D, (8, 16, 3, 4), "channels_first"),
    (layers.SpatialDropout3D, (8, 16, 2, 3, 2), "channels_first"),
])
def test_spatial_dropout_drops_whole_channels(cls, shape, data_format):
    x = RNG.uniform(0.5, 1.5, size=shape).astype("float32")
    layer = cls(0.5, seed=3) if data_format is None else cls(0.5, data_format, seed=3)
    np.testing.assert_array_equal(layer(x).numpy(), x)  # inference: identity
    out, gradient, upstream = upstream_gradient(layer, x, training=True)
    channels_last = out if data_format is None else np.moveaxis(out, 1, -1)
    kept = (channels_last != 0).reshape(shape[0], -1, 16)
    # Each (sample, channel) is kept or dropped at every position together.
    assert np.all(kept.all(axis=1) | ~kept.any(axis=1))
    assert 0.25 < kept[:, 0].mean() < 0.75
    np.testing.assert_allclose(out[out != 0], (x * 2)[out != 0], rtol=1e-6)
    np.testing.assert_allclose(gradient, upstream * (out / x), rtol=1e-6, atol=1e-6)
    assert layer.__class__.from_config(layer.get_config())(x, training=True).numpy().tolist() \
        == cls.from_config(layer.get_config())(x, training=True).numpy().tolist()


def test_spatial_dropout_config_and_errors():
    config = layers.SpatialDropout2D(0.3, seed=1).get_config()
    assert config["rate"] == 0.3 and config["seed"] == 1 and "noise_shape" not in config
    assert config["data_format"] == "channels_last"
    assert layers.SpatialDropout1D.from_config(layers.SpatialDropout1D(0.2).get_config()).rate \
        == 0.2
    with pytest.raises(ValueError, match="Layer 'sd0' expects input of rank 4"):
        layers.SpatialDropout2D(0.5, name="sd0")(rand(2, 3, 4).astype("float32"))
    with pytest.raises(ValueError, match="sd1"):
        layers.SpatialDropout1D(1.5, name="sd1")
    with pytest.raises(ValueError, match="Layer 'sd2' .*data_format"):
        layers.SpatialDropout3D(0.5, data_format="channels_middle", name="sd2")
    assert layers.SpatialDropout3D(0.1, "channels_first").get_config()["data_format"] == \
        "channels_first"


# ------------------------------------------------------------------ Gaussian and alpha dropout
def test_gaussian_dropout_multiplies_by_unit_mean_noise_while_training():
    x = RNG.uniform(0.5, 1.5, size=(200, 100)).astype("float32")
    layer = layers.GaussianDropout(0.2, seed=4)
    np.testing.assert_array_equal(layer(x).numpy(), x)
    out, gradient, upstream = upstream_gradient(layer, x, training=True)
    assert out.dtype == np.float32
    factor = out / x
    assert abs(factor.mean() - 1.0) < 0.01
    assert abs(factor.std() - np.sqrt(0.2 / 0.8)) < 0.01
    np.testing.assert_allclose(gradient, upstream * factor, rtol=1e-5, atol=1e-6)
    same = layers.GaussianDropout(0.2, seed=4)(x, training=True).numpy()
    np.testing.assert_array_equal(same, out)
    np.testing.assert_array_equal(layers.GaussianDropout(0.0)(x, training=True).numpy(), x)


def alpha_dropout_affine(rate):
    """Keras' (a, b, dropped value) of AlphaDropout."""
    alpha_p = -1.6732632423543772 * 1.0507009873554805
    a = ((1 - rate) * (1 + rate * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * rate
    return a, b, a * alpha_p + b


def test_alpha_dropout_keeps_selu_statistics_while_training():
    x = RNG.standard_normal((400, 250)).astype("float32")
    layer = layers.AlphaDropout(0.2, seed=5)
    np.testing.assert_array_equal(layer(x).numpy(), x)
    out, gradient, upstream = upstream_gradient(layer, x, training=True)
    a, b, dropped_value = alpha_dropout_affine(0.2)
    kept = np.isclose(out, a * x + b, atol=1e-5)
    dropped = np.isclose(out, dropped_value, atol=1e-5)
    assert np.all(kept | dropped)
    assert abs(dropped.mean() - 0.2) < 0.01
    assert abs(out.mean()) < 0.02 and abs(out.var() - 1.0) < 0.02   # SELU's fixed point
    np.testing.assert_allclose(gradient, upstream * a * kept, rtol=1e-5, atol=1e-6)


def test_alpha_dropout_noise_shape_broadcasts_decisions():
    x = RNG.standard_normal((50, 6)).astype("float32")
    out = layers.AlphaDropout(0.5, noise_shape=(None, 1), seed=6)(x, training=True).numpy()
    dropped = np.isclose(out, alpha_dropout_affine(0.5)[2], atol=1e-6)
    assert np.all(dropped.all(axis=1) | ~dropped.any(axis=1))   # whole rows together
    config = layers.AlphaDropout(0.5, noise_shape=(None, 1)).get_config()
    assert config["noise_shape"] == [None, 1] and config["seed"] is None


@pytest.mark.parametrize("make", [lambda: layers.GaussianDropout(1.0, name="gd"),
                                  lambda: layers.AlphaDropout(-0.1, name="gd")])
def test_dropout_rates_are_checked(make):
    with pytest.raises(ValueError, match=r"Layer 'gd' \(\w+\) needs rate in \[0, 1\)"):
        make()


# ------------------------------------------------------------------ Gaussian noise
def test_gaussian_noise_only_while_training():
    x = np.zeros((200, 50), dtype="float32")
    layer = layers.GaussianNoise(0.5, seed=0)
    np.testing.assert_array_equal(layer(x).numpy(), x)
    out, gradient, upstream = upstream_gradient(layer, x, training=True)
    assert out.dtype == np.float32
    assert abs(out.std() - 0.5) < 0.02 and abs(out.mean()) < 0.02
    np.testing.assert_allclose(gradient, upstream)
    with pytest.raises(ValueError, match="Layer 'gn' .*stddev"):
        layers.GaussianNoise(-1.0, name="gn")


# ------------------------------------------------------------------ activity regularization
def test_activity_regularization_adds_penalty():
    x = rand(4, 3).astype("float32")
    layer = layers.ActivityRegularization(l1=0.1, l2=0.01)
    np.testing.assert_array_equal(layer(x).numpy(), x)
    (penalty,) = layer.losses
    expected = 0.1 * np.abs(x).sum() + 0.01 * (x ** 2).sum()
    np.testing.assert_allclose(float(penalty), expected, rtol=1e-5)
    x_tensor = Tensor(x.astype("float32"), requires_grad=True)
    layer._clear_call_losses()
    layer(x_tensor)
    (gradient,) = lamina.grad(layer.losses[0], [x_tensor])
    np.testing.assert_allclose(gradient.numpy(), 0.1 * np.sign(x) + 0.02 * x, rtol=1e-5)
    assert layer.get_config()["l1"] == 0.1


def test_activity_regularization_enters_the_training_loss():
    x = rand(8, 3).astype("float32")
    y = np.zeros((8, 1), dtype="float32")
    dense = layers.Dense(1, kernel_initializer="ones")
    model = lamina.Sequential([lamina.Input((3,)), layers.ActivityRegularization(l2=10.0),
                               dense])
    model.compile("sgd", "mse")
    plain = lamina.Sequential([lamina.Input((3,)), layers.Dense(1, kernel_initializer="ones")])
    plain.compile("sgd", "mse")
    assert model.evaluate(x, y, verbose=0) > plain.evaluate(x, y, verbose=0) + 1.0


# ------------------------------------------------------------------ shared checks
CASES = [
    (lambda: layers.SpatialDropout1D(0.5), (2, 3, 2)),
    (lambda: layers.SpatialDropout2D(0.5), (2, 2, 3, 2)),
    (lambda: layers.GaussianNoise(0.3), (2, 3)),
    (lambda: layers.ActivityRegularization(0.1, 0.2), (2, 3)),
    (lambda: layers.SpatialDropout3D(0.5), (2, 2, 2, 2, 2)),
    (lambda: layers.GaussianDropout(0.3, seed=1), (2, 3)),
    (lambda: layers.AlphaDropout(0.3, noise_shape=(None, 3)), (2, 3)),
]
CASE_IDS = ["sdrop1d", "sdrop2d", "noise", "activity", "sdrop3d", "gaussian_dropout",
            "alpha_dropout"]

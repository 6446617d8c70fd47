"""SpatialDropout1D/2D, GaussianNoise, ActivityRegularization, Normalization (adapt) and
TimeDistributed: behaviour, gradients, configs, shapes and models."""

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.backends import Tensor

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
@pytest.mark.parametrize("cls, shape", [(layers.SpatialDropout1D, (8, 5, 16)),
                                        (layers.SpatialDropout2D, (8, 3, 4, 16))])
def test_spatial_dropout_drops_whole_channels(cls, shape):
    x = RNG.uniform(0.5, 1.5, size=shape).astype("float32")
    layer = cls(0.5, seed=3)
    np.testing.assert_array_equal(layer(x).numpy(), x)  # inference: identity
    out, gradient, upstream = upstream_gradient(layer, x, training=True)
    kept = (out != 0).reshape(shape[0], -1, shape[-1])
    # Each (sample, channel) is kept or dropped at every position together.
    assert np.all(kept.all(axis=1) | ~kept.any(axis=1))
    assert 0.25 < kept[:, 0].mean() < 0.75
    np.testing.assert_allclose(out[out != 0], (x * 2)[out != 0], rtol=1e-6)
    np.testing.assert_allclose(gradient, upstream * (out / x), rtol=1e-6, atol=1e-6)
    assert cls(0.5, seed=3)(x, training=True).numpy().tolist() == \
        cls(0.5, seed=3)(x, training=True).numpy().tolist()


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
    with pytest.raises(ValueError, match="Layer 'sd2' .*channels_last"):
        layers.SpatialDropout2D(0.5, data_format="channels_first", name="sd2")


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


# ------------------------------------------------------------------ Normalization
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


# ------------------------------------------------------------------ TimeDistributed
def test_time_distributed_applies_the_layer_to_every_step():
    x = rand(2, 4, 5, 5, 3).astype("float32")
    conv = layers.Conv2D(2, 3, bias_initializer="random_normal")
    wrapper = layers.TimeDistributed(conv)
    got = wrapper(x).numpy()
    assert got.shape == (2, 4, 3, 3, 2)
    for t in range(4):
        np.testing.assert_allclose(got[:, t], conv(x[:, t]).numpy(), atol=1e-6)
    assert wrapper.weights == conv.weights and len(wrapper.trainable_weights) == 2
    assert wrapper.compute_output_shape((None, None, 5, 5, 3)) == (None, None, 3, 3, 2)

    dropout = layers.TimeDistributed(layers.Dropout(0.5))
    assert np.count_nonzero(dropout(np.ones((4, 5, 6), "float32"), training=True).numpy()) < 120


def test_time_distributed_config_and_errors():
    wrapper = layers.TimeDistributed(layers.Dense(3, name="inner_dense"))
    config = wrapper.get_config()
    assert config["layer"]["class_name"] == "Dense"
    assert config["layer"]["config"]["name"] == "inner_dense"
    with pytest.raises(ValueError, match="Layer 'td0' expects input of rank >= 3"):
        layers.TimeDistributed(layers.Dense(2), name="td0")(rand(2, 3).astype("float32"))
    with pytest.raises(ValueError, match="Layer 'td1' .*Layer instance"):
        layers.TimeDistributed("dense", name="td1")


# ------------------------------------------------------------------ shared checks
CASES = [
    (lambda: layers.SpatialDropout1D(0.5), (2, 3, 2)),
    (lambda: layers.SpatialDropout2D(0.5), (2, 2, 3, 2)),
    (lambda: layers.GaussianNoise(0.3), (2, 3)),
    (lambda: layers.ActivityRegularization(0.1, 0.2), (2, 3)),
    (lambda: layers.Normalization(mean=[1.0, 2.0, 3.0], variance=[1.0, 4.0, 0.25]), (4, 3)),
    (lambda: layers.TimeDistributed(layers.Dense(3, activation="tanh",
                                                 bias_initializer="random_normal")), (2, 3, 4)),
    (lambda: layers.TimeDistributed(layers.Conv1D(2, 2)), (2, 2, 4, 2)),
]
CASE_IDS = ["sdrop1d", "sdrop2d", "noise", "activity", "normalization", "td_dense",
            "td_conv"]


def test_gradients_match_finite_differences(float64, layer_case):
    layer_case.check_gradients()


def test_config_round_trip_and_output_shape(layer_case):
    layer_case.check_config_and_output_shape()


def test_adapted_normalization_config_round_trip(check_config):
    layer = layers.Normalization()
    layer.adapt(rand(20, 3) * 4)
    clone = check_config(layer, rand(5, 3).astype("float32"))
    np.testing.assert_allclose(clone.get_weights()[1], layer.get_weights()[1])


@pytest.mark.parametrize("make, shape", CASES, ids=CASE_IDS)
def test_inside_sequential_and_functional_models(check_models, make, shape):
    check_models(make, rand(*shape))


def test_time_distributed_trains_in_a_model():
    lamina.utils.set_random_seed(0)
    x = RNG.standard_normal((32, 5, 3)).astype("float32")
    y = x @ np.array([[1.0], [-2.0], [0.5]], dtype="float32")
    model = lamina.Sequential([lamina.Input((5, 3)), layers.TimeDistributed(layers.Dense(1))])
    model.compile(lamina.optimizers.Adam(0.05), "mse")
    history = model.fit(x, y, epochs=30, batch_size=8, verbose=0)
    assert history.history["loss"][-1] < 0.05 * history.history["loss"][0]

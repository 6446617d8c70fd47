"""Core layers (issue #3): Dense, Activation, Dropout, Flatten, Reshape,
Permute, RepeatVector, Identity, Rescaling, Lambda, and a user-written custom layer that
learns with no extra code."""

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.layers import Layer

from harness.keras_references import case_id, check_against_keras, keras_cases


def rng(seed=0):
    return np.random.default_rng(seed)


def f32(a):
    return np.asarray(a, dtype="float32")


# ------------------------------------------------------------------ Dense
def test_dense_matches_numpy_for_every_activation_path():
    r = rng(0)
    x = f32(r.standard_normal((5, 4)))
    for activation, reference in [
            (None, lambda z: z), ("relu", lambda z: np.maximum(z, 0)),
            ("sigmoid", lambda z: 1 / (1 + np.exp(-z))), ("tanh", np.tanh),
            ("softmax", lambda z: np.exp(z) / np.exp(z).sum(-1, keepdims=True)),
            ("elu", lambda z: np.where(z > 0, z, np.exp(z) - 1))]:
        dense = layers.Dense(3, activation=activation)
        dense(x)
        kernel = f32(r.standard_normal((4, 3)))
        bias = f32(r.standard_normal(3))
        dense.set_weights([kernel, bias])
        np.testing.assert_allclose(dense(x).numpy(), reference(x @ kernel + bias),
                                   rtol=1e-5, atol=1e-6, err_msg=str(activation))


def test_dense_without_bias_on_rank3_input():
    dense = layers.Dense(2, use_bias=False, kernel_initializer="ones")
    x = f32(np.arange(12).reshape(2, 3, 2))
    out = dense(x)
    assert [w.name for w in dense.weights] == ["kernel"]
    np.testing.assert_array_equal(out.numpy(), np.repeat(x.sum(-1, keepdims=True), 2, -1))
    assert dense.compute_output_shape((None, 3, 2)) == (None, 3, 2)


def test_dense_config_round_trip_rebuilds_same_layer():
    dense = layers.Dense(5, activation="relu", use_bias=False,
                         kernel_initializer="he_normal",
                         kernel_regularizer=lamina.regularizers.L2(0.3), name="dense_cfg")
    config = dense.get_config()
    assert config["units"] == 5 and config["activation"] == "relu"
    assert config["kernel_initializer"]["class_name"] == "HeNormal"
    assert config["kernel_regularizer"] == {"class_name": "L2", "config": {"l2": 0.3}}
    clone = layers.Dense.from_config(config)
    assert clone.get_config() == config


def test_dense_rejects_bad_units():
    for bad in (0, -3, 2.5, True, "4"):
        with pytest.raises(ValueError, match="positive int units"):
            layers.Dense(bad)


# ------------------------------------------------------------------ Activation
def test_activation_layer_by_name_and_callable():
    x = f32([[-2.0, 0.0, 3.0]])
    np.testing.assert_array_equal(layers.Activation("relu")(x).numpy(), [[0, 0, 3]])
    np.testing.assert_allclose(layers.Activation("softmax")(x).numpy(),
                               np.exp(x) / np.exp(x).sum(), rtol=1e-6)
    np.testing.assert_array_equal(layers.Activation(ops.abs)(x).numpy(), [[2, 0, 3]])
    layer = layers.Activation("tanh")
    assert layer.get_config()["activation"] == "tanh"
    np.testing.assert_allclose(layers.Activation.from_config(layer.get_config())(x).numpy(),
                               np.tanh(x), rtol=1e-6)


# ------------------------------------------------------------------ Dropout
def test_dropout_only_in_training():
    lamina.utils.set_random_seed(0)
    x = np.ones((2000, 10), dtype="float32")
    dropout = layers.Dropout(0.3)
    np.testing.assert_array_equal(dropout(x).numpy(), x)
    np.testing.assert_array_equal(dropout(x, training=False).numpy(), x)
    out = dropout(x, training=True).numpy()
    kept = out != 0
    assert abs(kept.mean() - 0.7) < 0.02
    np.testing.assert_allclose(out[kept], 1 / 0.7, rtol=1e-6)  # inverted scaling
    assert abs(out.mean() - 1.0) < 0.03


def test_dropout_in_model_active_in_fit_inactive_in_predict():
    lamina.utils.set_random_seed(0)
    x = np.ones((64, 8), dtype="float32")
    model = lamina.Sequential([lamina.Input((8,)), layers.Dropout(0.5),
                               layers.Lambda(lambda t: ops.mean(t, axis=-1, keepdims=True))])
    np.testing.assert_array_equal(model.predict(x, verbose=0), np.ones((64, 1)))
    trained = model(x, training=True).numpy()
    assert trained.std() > 0.05  # different samples lose different features
    model.compile(optimizer="sgd", loss="mse")
    # loss against the input's mean: zero at inference, non-zero with dropout in fit
    assert model.evaluate(x, np.ones((64, 1)), verbose=0) == pytest.approx(0.0, abs=1e-12)
    history = model.fit(x, np.ones((64, 1)), epochs=1, batch_size=64, verbose=0)
    assert history.history["loss"][0] > 0.01


def test_dropout_seed_and_noise_shape_and_rate_check():
    x = np.ones((4, 6, 5), dtype="float32")
    a = layers.Dropout(0.5, seed=3)(x, training=True).numpy()
    b = layers.Dropout(0.5, seed=3)(x, training=True).numpy()
    np.testing.assert_array_equal(a, b)
    shared = layers.Dropout(0.5, noise_shape=(None, 1, 5), seed=1)(x, training=True).numpy()
    # the same features are dropped at every time step
    np.testing.assert_array_equal(shared, np.broadcast_to(shared[:, :1, :], shared.shape))
    with pytest.raises(ValueError, match=r"rate in \[0, 1\)"):
        layers.Dropout(1.0)
    assert layers.Dropout(0.25, seed=7).get_config()["rate"] == 0.25


# ------------------------------------------------------------------ shape layers
def test_flatten():
    x = f32(np.arange(24).reshape(2, 3, 4))
    layer = layers.Flatten()
    np.testing.assert_array_equal(layer(x).numpy(), x.reshape(2, 12))
    assert layer.compute_output_shape((None, 3, 4)) == (None, 12)
    assert layer(lamina.Input((2, 5, 3))).shape == (None, 30)


def test_flatten_channels_first_flattens_in_channels_last_order():
    x = f32(np.arange(24).reshape(2, 3, 2, 2))
    layer = layers.Flatten(data_format="channels_first")
    np.testing.assert_array_equal(layer(x).numpy(),
                                  np.moveaxis(x, 1, -1).reshape(2, 12))
    assert layer.get_config()["data_format"] == "channels_first"
    assert layers.Flatten().get_config()["data_format"] == "channels_last"


@pytest.mark.parametrize("case", keras_cases("lamina.layers.core"), ids=case_id)
def test_matches_keras(case):
    check_against_keras(case)


def test_reshape_with_and_without_minus_one():
    x = f32(np.arange(24).reshape(2, 12))
    np.testing.assert_array_equal(layers.Reshape((3, 4))(x).numpy(), x.reshape(2, 3, 4))
    np.testing.assert_array_equal(layers.Reshape((2, -1))(x).numpy(), x.reshape(2, 2, 6))
    assert layers.Reshape((-1, 3))(lamina.Input((12,))).shape == (None, 4, 3)
    with pytest.raises(ValueError, match=r"cannot reshape input of shape \(2, 12\) to \(5,\)"):
        layers.Reshape((5,))(x)
    with pytest.raises(ValueError, match="at most one -1"):
        layers.Reshape((-1, -1))
    assert layers.Reshape.from_config(layers.Reshape((3, 4)).get_config()).target_shape == (3, 4)


def test_permute():
    x = f32(np.arange(24).reshape(2, 3, 4))
    np.testing.assert_array_equal(layers.Permute((2, 1))(x).numpy(), x.transpose(0, 2, 1))
    assert layers.Permute((2, 1))(lamina.Input((3, 4))).shape == (None, 4, 3)
    with pytest.raises(ValueError, match="permutation"):
        layers.Permute((1, 3))


def test_repeat_vector():
    x = f32([[1, 2], [3, 4]])
    out = layers.RepeatVector(3)(x).numpy()
    assert out.shape == (2, 3, 2)
    np.testing.assert_array_equal(out, np.repeat(x[:, None, :], 3, axis=1))
    assert layers.RepeatVector(4)(lamina.Input((5,))).shape == (None, 4, 5)
    with pytest.raises(ValueError, match="positive int n"):
        layers.RepeatVector(0)


def test_identity_and_rescaling():
    x = f32([[255.0, 0.0, 51.0]])
    np.testing.assert_array_equal(layers.Identity()(x).numpy(), x)
    np.testing.assert_allclose(layers.Rescaling(1 / 255.0)(x).numpy(), [[1.0, 0.0, 0.2]],
                               rtol=1e-6)
    np.testing.assert_allclose(layers.Rescaling(1 / 127.5, offset=-1.0)(x).numpy(),
                               [[1.0, -1.0, -0.6]], rtol=1e-6, atol=1e-7)
    config = layers.Rescaling(2.0, offset=1.0).get_config()
    assert config["scale"] == 2.0 and config["offset"] == 1.0


def test_lambda_layer():
    x = f32([[1.0, -2.0]])
    layer = layers.Lambda(lambda t, k: t * k, arguments={"k": 3.0})
    np.testing.assert_array_equal(layer(x).numpy(), [[3.0, -6.0]])
    assert layer(lamina.Input((2,))).shape == (None, 2)
    squeeze = layers.Lambda(lambda t: ops.sum(t, axis=-1, keepdims=True), output_shape=(1,))
    assert squeeze.compute_output_shape((None, 7)) == (None, 1)

    def double(t):
        return t * 2.0

    assert layers.Lambda(double).get_config()["function"] == "double"
    with pytest.raises(TypeError, match="needs a callable"):
        layers.Lambda(3)


def test_lambda_gradients_flow_in_a_model():
    lamina.utils.set_random_seed(0)
    r = rng(3)
    x = f32(r.standard_normal((128, 2)))
    y = f32(3.0 * np.square(x[:, :1]) - x[:, 1:])
    inputs = lamina.Input((2,))
    squared = layers.Lambda(lambda t: ops.concatenate([ops.square(t), t], axis=-1))(inputs)
    model = lamina.Model(inputs, layers.Dense(1)(squared))
    model.compile(optimizer=lamina.optimizers.Adam(0.05), loss="mse")
    model.fit(x, y, epochs=150, batch_size=32, verbose=0)
    assert model.evaluate(x, y, verbose=0) < 1e-3


# ------------------------------------------------------------------ custom layers
class Polynomial(Layer):
    """``a * x**2 + b * x + c`` elementwise, written only with lamina.ops."""

    def build(self, input_shape):
        self.a = self.add_weight((input_shape[-1],), "zeros", name="a")
        self.b = self.add_weight((input_shape[-1],), "zeros", name="b")
        self.c = self.add_weight((input_shape[-1],), "zeros", name="c")

    def call(self, inputs):
        return ops.add(ops.multiply(ops.square(inputs), self.a),
                       ops.add(ops.multiply(inputs, self.b), self.c))


def test_custom_layer_with_ops_learns_its_coefficients():
    lamina.utils.set_random_seed(0)
    x = f32(np.linspace(-2, 2, 64).reshape(-1, 1))
    y = f32(1.5 * x ** 2 - 0.5 * x + 2.0)
    layer = Polynomial()
    model = lamina.Sequential([lamina.Input((1,)), layer])
    model.compile(optimizer=lamina.optimizers.Adam(0.1), loss="mse")
    model.fit(x, y, epochs=150, batch_size=64, verbose=0)
    np.testing.assert_allclose([layer.a.numpy()[0], layer.b.numpy()[0], layer.c.numpy()[0]],
                               [1.5, -0.5, 2.0], atol=0.05)


def test_custom_layer_gradient_matches_closed_form():
    layer = Polynomial()
    x = f32([[1.0, 2.0], [3.0, -1.0]])
    layer(x)
    layer.set_weights([f32([1.0, 2.0]), f32([0.5, 0.0]), f32([0.0, 1.0])])
    loss = ops.sum(layer(x))
    grads = lamina.grad(loss, layer.trainable_weights)
    np.testing.assert_allclose(grads[0].numpy(), (x ** 2).sum(0))
    np.testing.assert_allclose(grads[1].numpy(), x.sum(0))
    np.testing.assert_allclose(grads[2].numpy(), [2.0, 2.0])


def test_custom_layer_with_sublayers_trains_all_weights():
    class Residual(Layer):
        def __init__(self, units, **kwargs):
            super().__init__(**kwargs)
            self.inner = layers.Dense(units, activation="tanh")
            self.proj = layers.Dense(units)

        def call(self, inputs):
            return ops.add(self.proj(self.inner(inputs)), inputs)

    lamina.utils.set_random_seed(0)
    r = rng(4)
    x = f32(r.standard_normal((64, 3)))
    y = f32(np.sin(x))
    block = Residual(3)
    model = lamina.Sequential([lamina.Input((3,)), block])
    assert len(model.trainable_weights) == 4
    model.compile(optimizer=lamina.optimizers.Adam(0.02), loss="mse")
    before = model.evaluate(x, y, verbose=0)
    model.fit(x, y, epochs=40, batch_size=16, verbose=0)
    assert model.evaluate(x, y, verbose=0) < 0.25 * before


# ------------------------------------------------------------------ shared harness
def square_plus_one(t):
    return ops.square(t) + 1.0


CORE_LAYERS = {
    "dense_relu": (lambda: layers.Dense(3, activation="relu", bias_initializer="ones"), (4, 5)),
    "dense_softmax": (lambda: layers.Dense(3, activation="softmax"), (4, 5)),
    "dense_rank3": (lambda: layers.Dense(2, activation="tanh"), (2, 3, 4)),
    "activation_elu": (lambda: layers.Activation("elu"), (3, 4)),
    "flatten": (lambda: layers.Flatten(), (2, 3, 4)),
    "reshape": (lambda: layers.Reshape((4, -1)), (2, 3, 4)),
    "permute": (lambda: layers.Permute((2, 1)), (2, 3, 4)),
    "repeat_vector": (lambda: layers.RepeatVector(3), (2, 4)),
    "identity": (lambda: layers.Identity(), (2, 4)),
    "rescaling": (lambda: layers.Rescaling(0.5, offset=2.0), (2, 4)),
    "lambda": (lambda: layers.Lambda(square_plus_one), (2, 4)),
    "dropout_inference": (lambda: layers.Dropout(0.5), (2, 4)),
}


@pytest.mark.parametrize("name", sorted(CORE_LAYERS))
def test_core_layer_gradients_match_finite_differences(float64, check_gradients, name):
    make, shape = CORE_LAYERS[name]
    check_gradients(make(), rng(11).standard_normal(shape))


@pytest.mark.parametrize("name", sorted(set(CORE_LAYERS) - {"lambda"}))
def test_core_layer_config_output_shape_and_models(check_config, check_output_shape,
                                                    check_models, name):
    make, shape = CORE_LAYERS[name]
    x = f32(rng(12).standard_normal(shape))
    layer = make()
    check_config(layer, x)
    check_output_shape(layer, x)
    check_models(make, x)


def test_lambda_output_shape_with_several_inputs_takes_the_first_batch_axis():
    # Keras 3.15 (torch): Lambda(f, output_shape=(1,)) on [Input((10,)), Input((10,))]
    # -> (None, 1); compute_output_shape([(4, 10), (4, 10)]) -> (4, 1)
    a, b = lamina.Input((10,)), lamina.Input((10,))
    distance = layers.Lambda(
        lambda v: ops.sum(ops.square(v[0] - v[1]), axis=1, keepdims=True),
        output_shape=(1,))
    assert tuple(distance([a, b]).shape) == (None, 1)
    assert distance.compute_output_shape([(4, 10), (4, 10)]) == (4, 1)

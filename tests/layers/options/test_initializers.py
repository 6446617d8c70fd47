"""Activations by Keras names, initializer statistics, and l1 / l2 / l1_l2 regularizers
(issue #3)."""

import math

import numpy as np
import pytest

import lamina
from lamina import activations, initializers, layers, regularizers
from lamina.backends import state


def draw(name_or_obj, shape, dtype="float32"):
    init = initializers.get(name_or_obj)
    values = state.backend().to_numpy(init(shape, dtype=dtype))
    assert values.shape == tuple(shape) and values.dtype == np.dtype(dtype)
    return values


# ------------------------------------------------------------------ activations
X = np.linspace(-3, 3, 13, dtype="float32").reshape(1, -1)


def _sigmoid(z):
    return 1 / (1 + np.exp(-z))


REFERENCES = {
    "linear": lambda z: z,
    "relu": lambda z: np.maximum(z, 0),
    "relu6": lambda z: np.clip(z, 0, 6),
    "sigmoid": _sigmoid,
    "tanh": np.tanh,
    "softmax": lambda z: np.exp(z) / np.exp(z).sum(-1, keepdims=True),
    "log_softmax": lambda z: z - np.log(np.exp(z).sum(-1, keepdims=True)),
    "elu": lambda z: np.where(z > 0, z, np.exp(z) - 1),
    "selu": lambda z: 1.0507009873554805 * np.where(z > 0, z, 1.6732632423543772
                                                    * (np.exp(z) - 1)),
    "softplus": lambda z: np.log1p(np.exp(z)),
    "softsign": lambda z: z / (1 + np.abs(z)),
    "swish": lambda z: z * _sigmoid(z),
    "silu": lambda z: z * _sigmoid(z),
    "exponential": np.exp,
    "hard_sigmoid": lambda z: np.clip(z / 6 + 0.5, 0, 1),
    "leaky_relu": lambda z: np.where(z > 0, z, 0.2 * z),
    "gelu": lambda z: 0.5 * z * (1 + np.vectorize(math.erf)(z / math.sqrt(2))),
}


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_activation_by_keras_name_matches_reference(name):
    fn = activations.get(name)
    out = fn(lamina.ops.convert_to_tensor(X)).numpy()
    # gelu may use the tanh approximation (Keras' default is approximate=True)
    tolerance = 1e-3 if name == "gelu" else 1e-5
    np.testing.assert_allclose(out, REFERENCES[name](X.astype("float64")), rtol=tolerance,
                               atol=tolerance)
    assert activations.serialize(fn) in (name, "silu" if name == "swish" else name)


def test_activation_get_none_callable_and_unknown():
    assert activations.get(None) is activations.linear
    custom = lambda z: z * 2  # noqa: E731
    assert activations.get(custom) is custom
    with pytest.raises(ValueError) as info:
        activations.get("relux")
    message = str(info.value)
    assert "relux" in message and "relu" in message and "sigmoid" in message
    with pytest.raises(TypeError):
        activations.get(3)
    with pytest.raises(ValueError, match="relux"):
        layers.Dense(2, activation="relux")


# ------------------------------------------------------------------ initializers
def test_constant_initializers():
    np.testing.assert_array_equal(draw("zeros", (3, 2)), np.zeros((3, 2)))
    np.testing.assert_array_equal(draw("ones", (4,)), np.ones(4))
    np.testing.assert_array_equal(draw(initializers.Constant(2.5), (2, 2)), np.full((2, 2), 2.5))
    np.testing.assert_array_equal(draw({"class_name": "Constant", "config": {"value": -1.0}},
                                       (3,)), [-1.0, -1.0, -1.0])
    assert draw("zeros", (2,), dtype="float64").dtype == np.float64


def test_glorot_uniform_is_dense_default_and_within_bounds():
    lamina.utils.set_random_seed(0)
    fan_in, fan_out = 300, 200
    limit = math.sqrt(6 / (fan_in + fan_out))
    values = draw("glorot_uniform", (fan_in, fan_out))
    assert values.min() >= -limit and values.max() <= limit
    assert values.min() < -0.98 * limit and values.max() > 0.98 * limit  # fills the range
    assert abs(values.std() - limit / math.sqrt(3)) < 0.01 * limit
    assert abs(values.mean()) < 0.01 * limit
    dense = layers.Dense(200)
    dense(np.zeros((1, 300), dtype="float32"))
    assert isinstance(dense.kernel_initializer, initializers.GlorotUniform)
    kernel = dense.kernel.numpy()
    assert kernel.min() >= -limit and kernel.max() <= limit
    np.testing.assert_array_equal(dense.bias.numpy(), np.zeros(200))


@pytest.mark.parametrize("name, scale, fan", [
    ("he_normal", 2.0, "in"), ("lecun_normal", 1.0, "in"), ("glorot_normal", 1.0, "avg")])
def test_truncated_normal_variance_scaling_std(name, scale, fan):
    lamina.utils.set_random_seed(1)
    fan_in, fan_out = 400, 250
    values = draw(name, (fan_in, fan_out))
    denominator = fan_in if fan == "in" else (fan_in + fan_out) / 2
    expected_std = math.sqrt(scale / denominator)
    assert abs(values.std() - expected_std) < 0.02 * expected_std
    assert abs(values.mean()) < 0.02 * expected_std
    # truncated at two (untruncated) standard deviations
    bound = 2 * expected_std / 0.87962566103423978
    assert np.abs(values).max() <= bound * (1 + 1e-6)


@pytest.mark.parametrize("name, scale, fan", [("he_uniform", 2.0, "in"),
                                              ("lecun_uniform", 1.0, "in")])
def test_uniform_variance_scaling_bounds(name, scale, fan):
    lamina.utils.set_random_seed(2)
    values = draw(name, (500, 100))
    limit = math.sqrt(3 * scale / 500)
    assert values.min() >= -limit and values.max() <= limit
    assert values.min() < -0.98 * limit and values.max() > 0.98 * limit
    assert abs(values.std() - limit / math.sqrt(3)) < 0.02 * limit


def test_variance_scaling_uses_receptive_field_for_conv_kernels():
    lamina.utils.set_random_seed(3)
    values = draw("he_normal", (3, 3, 32, 64))
    expected_std = math.sqrt(2 / (3 * 3 * 32))
    assert abs(values.std() - expected_std) < 0.03 * expected_std


def test_random_normal_uniform_and_truncated():
    lamina.utils.set_random_seed(4)
    normal = draw("random_normal", (200, 200))
    assert abs(normal.std() - 0.05) < 0.001 and abs(normal.mean()) < 0.001
    shifted = draw(initializers.RandomNormal(mean=1.0, stddev=2.0), (200, 200))
    assert abs(shifted.mean() - 1.0) < 0.03 and abs(shifted.std() - 2.0) < 0.03
    uniform = draw("random_uniform", (200, 200))
    assert uniform.min() >= -0.05 and uniform.max() <= 0.05
    assert abs(uniform.std() - 0.1 / math.sqrt(12)) < 0.001
    custom = draw(initializers.RandomUniform(2.0, 3.0), (1000,))
    assert custom.min() >= 2.0 and custom.max() <= 3.0 and abs(custom.mean() - 2.5) < 0.03
    truncated = draw(initializers.TruncatedNormal(mean=0.0, stddev=1.0), (200, 200))
    assert np.abs(truncated).max() <= 2.0
    # std of a standard normal truncated to [-2, 2]
    assert abs(truncated.std() - 0.87962566103423978) < 0.01


def test_orthogonal_is_orthogonal():
    lamina.utils.set_random_seed(5)
    square = draw("orthogonal", (64, 64)).astype("float64")
    np.testing.assert_allclose(square.T @ square, np.eye(64), atol=1e-5)
    tall = draw("orthogonal", (100, 30)).astype("float64")
    np.testing.assert_allclose(tall.T @ tall, np.eye(30), atol=1e-5)
    wide = draw("orthogonal", (20, 50)).astype("float64")
    np.testing.assert_allclose(wide @ wide.T, np.eye(20), atol=1e-5)
    scaled = draw(initializers.Orthogonal(gain=3.0), (16, 16)).astype("float64")
    np.testing.assert_allclose(scaled.T @ scaled, 9 * np.eye(16), atol=1e-4)


def test_seeded_initializer_is_reproducible_and_global_seed_governs_others():
    a = draw(initializers.GlorotUniform(seed=42), (10, 10))
    b = draw(initializers.GlorotUniform(seed=42), (10, 10))
    np.testing.assert_array_equal(a, b)
    lamina.utils.set_random_seed(7)
    c = draw("he_normal", (10, 10))
    d = draw("he_normal", (10, 10))
    assert not np.array_equal(c, d)
    lamina.utils.set_random_seed(7)
    np.testing.assert_array_equal(draw("he_normal", (10, 10)), c)


def test_initializer_config_round_trip_and_by_name_in_layer():
    init = initializers.VarianceScaling(scale=0.5, mode="fan_out", distribution="uniform",
                                        seed=3)
    config = initializers.serialize(init)
    assert config == {"class_name": "VarianceScaling",
                      "config": {"scale": 0.5, "mode": "fan_out", "distribution": "uniform",
                                 "seed": 3}}
    clone = initializers.get(config)
    np.testing.assert_array_equal(draw(clone, (5, 5)), draw(init, (5, 5)))
    dense = layers.Dense(3, kernel_initializer="ones", bias_initializer="constant")
    dense(np.zeros((1, 2), dtype="float32"))
    np.testing.assert_array_equal(dense.kernel.numpy(), np.ones((2, 3)))


def test_unknown_initializer_lists_known_names():
    with pytest.raises(ValueError) as info:
        initializers.get("glorot_uniformm")
    message = str(info.value)
    assert "glorot_uniformm" in message
    for known in ("glorot_uniform", "he_normal", "orthogonal", "zeros"):
        assert known in message
    with pytest.raises(ValueError, match="glorot_uniformm"):
        layers.Dense(2, kernel_initializer="glorot_uniformm")


# ------------------------------------------------------------------ regularizers
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

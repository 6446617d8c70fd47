"""Neural-network ops in ``lamina.ops`` (``backends/ops/nn.py``): activations, softmax,
fused dense, normalization and dropout."""

import math

import numpy as np
import pytest
from scipy.special import erf

import lamina
from lamina import ops

RNG = np.random.default_rng(5)
SELU_ALPHA = 1.6732632423543772
SELU_SCALE = 1.0507009873554805


def rand(*shape, low=-3.0, high=3.0):
    """Float64 test data, uniform in [low, high)."""
    return np.asarray(RNG.uniform(low, high, size=shape))


def off_kinks(*shape):
    """Float64 data in (-3, 8) at least 0.05 away from the kinks 0 and 6."""
    values = rand(*shape, low=-3.0, high=8.0)
    for kink in (0.0, 6.0):
        close = np.abs(values - kink) < 0.05
        values[close] += 0.1
    return values


def log_softmax_ref(z, axis=-1):
    """Plain-NumPy log-softmax."""
    shifted = z - z.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def sigmoid_ref(x):
    """Plain-NumPy logistic sigmoid."""
    return 1.0 / (1.0 + np.exp(-x))


# ------------------------------------------------------------------ activations
ACTIVATIONS = [
    ("relu", ops.relu, lambda x: np.maximum(x, 0.0)),
    ("relu6", ops.relu6, lambda x: np.clip(x, 0.0, 6.0)),
    ("leaky_relu", ops.leaky_relu, lambda x: np.where(x > 0, x, 0.2 * x)),
    ("leaky_relu_0.05", lambda x: ops.leaky_relu(x, negative_slope=0.05),
     lambda x: np.where(x > 0, x, 0.05 * x)),
    ("elu", ops.elu, lambda x: np.where(x > 0, x, np.expm1(x))),
    ("elu_0.5", lambda x: ops.elu(x, alpha=0.5), lambda x: np.where(x > 0, x, 0.5 * np.expm1(x))),
    ("selu", ops.selu, lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(x))),
    ("gelu_tanh", lambda x: ops.gelu(x, approximate=True),
     lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))),
    ("gelu_erf", lambda x: ops.gelu(x, approximate=False),
     lambda x: 0.5 * x * (1 + erf(x / math.sqrt(2)))),
    ("silu", ops.silu, lambda x: x * sigmoid_ref(x)),
    ("sigmoid", ops.sigmoid, sigmoid_ref),
    ("softplus", ops.softplus, lambda x: np.log1p(np.exp(x))),
]


@pytest.mark.parametrize("op,reference", [a[1:] for a in ACTIVATIONS],
                         ids=[a[0] for a in ACTIVATIONS])
def test_activation(check_op, op, reference):
    check_op(op, [off_kinks(3, 5)], reference=reference)


def test_gelu_default_is_tanh_approximation(engine):
    x = rand(7)
    np.testing.assert_array_equal(ops.gelu(x).numpy(), ops.gelu(x, approximate=True).numpy())


def test_activations_do_not_overflow(engine):
    x = np.array([-1000.0, -50.0, 0.0, 50.0, 1000.0], dtype=np.float32)
    with np.errstate(over="raise", invalid="raise"):
        np.testing.assert_allclose(ops.sigmoid(x).numpy(), [0, 0, 0.5, 1, 1], atol=1e-7)
        np.testing.assert_allclose(ops.softplus(x).numpy(), [0, 0, math.log(2), 50, 1000],
                                   rtol=1e-6, atol=1e-7)


# Keras 3.15.1 (torch backend): float(keras.ops.<name>(v)) for v = np.float32(0.5),
# np.array(0.5, "float32") and 0.5 alike, each a float32 scalar tensor.
SCALAR_KERAS = {"sigmoid": 0.622459352016449, "softplus": 0.9740769863128662,
                "silu": 0.3112296760082245, "gelu": 0.345714002847671,
                "selu": 0.5253505110740662}


@pytest.mark.parametrize("name", sorted(SCALAR_KERAS))
@pytest.mark.parametrize("value", [np.float32(0.5), np.array(0.5, np.float32), 0.5],
                         ids=["numpy_scalar", "0d_array", "python_float"])
def test_activation_of_a_scalar(engine, name, value):
    # the image-classification example's float(ops.sigmoid(predictions[0][0]))
    out = getattr(ops, name)(value)
    assert out.shape == () and out.dtype == np.float32
    assert float(out) == pytest.approx(SCALAR_KERAS[name], rel=1e-6)


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_softmax(check_op, axis):
    (out,) = check_op(lambda x: ops.softmax(x, axis=axis), [rand(3, 4, 2)],
                      reference=lambda x: np.exp(log_softmax_ref(x, axis)))
    np.testing.assert_allclose(out.sum(axis=axis), 1.0)


@pytest.mark.parametrize("axis", [-1, 0])
def test_log_softmax(check_op, axis):
    check_op(lambda x: ops.log_softmax(x, axis=axis), [rand(3, 4)],
             reference=lambda x: log_softmax_ref(x, axis))


def test_softmax_large_logits_are_stable(engine):
    z = np.array([[1000.0, 0.0, -1000.0]], dtype=np.float32)
    np.testing.assert_allclose(ops.softmax(z).numpy(), [[1.0, 0.0, 0.0]])
    np.testing.assert_allclose(ops.log_softmax(z).numpy(), [[0.0, -1000.0, -2000.0]])


# ------------------------------------------------------------------ fused dense
DENSE_ACTIVATIONS = {
    None: lambda y: y,
    "linear": lambda y: y,
    "relu": lambda y: np.maximum(y, 0.0),
    "sigmoid": sigmoid_ref,
    "tanh": np.tanh,
}


@pytest.mark.parametrize("activation", list(DENSE_ACTIVATIONS), ids=str)
@pytest.mark.parametrize("x_shape", [(4, 3), (2, 3, 3)], ids=str)
def test_dense_with_bias(check_op, activation, x_shape):
    act = DENSE_ACTIVATIONS[activation]
    check_op(lambda x, w, b: ops.dense(x, w, b, activation=activation),
             [rand(*x_shape), rand(3, 5), rand(5)], reference=lambda x, w, b: act(x @ w + b))


@pytest.mark.parametrize("activation", ["linear", "tanh"])
def test_dense_without_bias(check_op, activation):
    act = DENSE_ACTIVATIONS[activation]
    check_op(lambda x, w: ops.dense(x, w, activation=activation), [rand(2, 3, 3), rand(3, 2)],
             reference=lambda x, w: act(x @ w))


def test_dense_with_constant_kernel(check_op):
    check_op(lambda x, w, b: ops.dense(x, w, b, activation="relu"),
             [rand(4, 3), rand(3, 2), rand(2)], wrt=[0, 2],
             reference=lambda x, w, b: np.maximum(x @ w + b, 0.0))


def test_dense_rejects_unfused_activation(engine):
    with pytest.raises(ValueError, match="softmax"):
        ops.dense(np.ones((2, 3)), np.ones((3, 2)), activation="softmax")


# ------------------------------------------------------------------ normalization
def batch_norm_ref(x, gamma=None, beta=None, epsilon=1e-3):
    """Plain-NumPy training-mode batch norm over all but the last axis."""
    axes = tuple(range(x.ndim - 1))
    y = (x - x.mean(axis=axes)) / np.sqrt(x.var(axis=axes) + epsilon)
    return y * (1.0 if gamma is None else gamma) + (0.0 if beta is None else beta)


@pytest.mark.parametrize("x_shape", [(6, 3), (2, 3, 4, 3)], ids=str)
def test_batch_normalization_train(check_op, x_shape):
    check_op(lambda x, g, b: ops.batch_normalization_train(x, g, b, 1e-3)[0],
             [rand(*x_shape), rand(3), rand(3)], reference=batch_norm_ref)
    check_op(lambda x: ops.batch_normalization_train(x, None, None, 1e-3)[0],
             [rand(*x_shape)], reference=batch_norm_ref)


def test_batch_normalization_returns_batch_statistics(engine):
    x = rand(8, 3)
    y, mean, variance = ops.batch_normalization_train(x, None, None, 1e-3)
    np.testing.assert_allclose(lamina.Tensor(mean).numpy(), x.mean(axis=0))
    np.testing.assert_allclose(lamina.Tensor(variance).numpy(), x.var(axis=0))
    np.testing.assert_allclose(y.numpy().mean(axis=0), 0.0, atol=1e-12)


def layer_norm_ref(x, gamma=None, beta=None, epsilon=1e-3):
    """Plain-NumPy layer norm over the last axis."""
    y = (x - x.mean(axis=-1, keepdims=True)) / np.sqrt(x.var(axis=-1, keepdims=True) + epsilon)
    return y * (1.0 if gamma is None else gamma) + (0.0 if beta is None else beta)


@pytest.mark.parametrize("x_shape", [(4, 5), (2, 3, 5)], ids=str)
def test_layer_normalization(check_op, x_shape):
    check_op(lambda x, g, b: ops.layer_normalization(x, g, b, 1e-3),
             [rand(*x_shape), rand(5), rand(5)], reference=layer_norm_ref)
    check_op(lambda x: ops.layer_normalization(x, None, None, 1e-3), [rand(*x_shape)],
             reference=layer_norm_ref)


# ------------------------------------------------------------------ dropout
def test_dropout_gradient_with_fixed_mask(check_op):
    def fixed_mask_dropout(x):
        generator = lamina.backends.get_backend().make_generator(3)
        return ops.dropout(x, 0.4, generator=generator)

    check_op(fixed_mask_dropout, [rand(4, 6)])


@pytest.mark.parametrize("rate", [0.1, 0.5, 0.8])
def test_dropout_mask_statistics_and_gradient(engine, rate):
    x = lamina.Tensor(np.full((200, 500), 2.0, dtype=np.float32), requires_grad=True)
    generator = lamina.backends.get_backend().make_generator(0)
    out = ops.dropout(x, rate, generator=generator)
    values = out.numpy()
    assert values.dtype == np.float32
    kept = values != 0
    assert set(np.unique(values)) <= {0.0, np.float32(2.0 / (1.0 - rate))}
    assert abs(1.0 - kept.mean() - rate) < 0.01
    assert abs(values.mean() - 2.0) < 0.05
    (gx,) = lamina.grad(out, [x])
    np.testing.assert_array_equal(gx.numpy(), values / 2.0)


def test_dropout_noise_shape_shares_the_mask(engine):
    x = np.ones((4, 3, 50), dtype=np.float32)
    generator = lamina.backends.get_backend().make_generator(1)
    values = ops.dropout(x, 0.5, generator=generator, noise_shape=(None, 1, None)).numpy()
    assert (values == values[:, :1, :]).all()
    assert 0 < (values == 0).mean() < 1


def test_dropout_rate_zero_and_invalid_rates(engine):
    x = lamina.Tensor(np.ones(3), requires_grad=True)
    assert ops.dropout(x, 0.0) is x
    for rate in (1.0, -0.1):
        with pytest.raises(ValueError, match="dropout rate"):
            ops.dropout(x, rate)

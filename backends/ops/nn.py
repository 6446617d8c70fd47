"""Neural-network ops: activations, softmax, fused dense, dropout and normalization, each
with a hand-written backward (the fused cross-entropies are in :mod:`.losses`)."""

import math

from .. import replica, state
from ..autodiff import Tensor
from ..dtypes import promote
from .activation_kernels import (check_fused_activation, dense_epilogue,
                                 dense_epilogue_backward, sigmoid as sigmoid_array)
from .core import data_of, float_data, record, xp
from .elementwise import unary_op

_SELU_ALPHA = 1.6732632423543772
_SELU_SCALE = 1.0507009873554805
_GELU_C = math.sqrt(2.0 / math.pi)


# ------------------------------------------------------------------ activations
def relu(x):
    """``max(x, 0)``."""
    a = data_of(x)
    out = xp().maximum(a, 0)
    return record(out, (x,), lambda g, needs: (g * (out > 0),), "relu")


def relu6(x):
    """``min(max(x, 0), 6)``."""
    a = data_of(x)
    out = xp().clip(a, 0, 6)
    return record(out, (x,), lambda g, needs: (g * ((a > 0) & (a < 6)),), "relu6")


def leaky_relu(x, negative_slope=0.2):
    """``x`` for positive inputs, ``negative_slope * x`` otherwise (Keras' default 0.2)."""
    a = data_of(x)
    positive = a > 0
    out = xp().where(positive, a, a * negative_slope)
    return record(out, (x,),
                  lambda g, needs: (xp().where(positive, g, g * negative_slope),), "leaky_relu")


def elu(x, alpha=1.0):
    """``x`` for positive inputs, ``alpha * (exp(x) - 1)`` otherwise."""
    a = data_of(x)
    positive = a > 0
    out = xp().where(positive, a, alpha * xp().expm1(xp().minimum(a, 0)))
    return record(out, (x,),
                  lambda g, needs: (xp().where(positive, g, g * (out + alpha)),), "elu")


def selu(x):
    """Scaled ELU with the self-normalizing constants."""
    a = float_data(x)
    positive = a > 0
    negative_part = _SELU_ALPHA * xp().expm1(xp().minimum(a, 0))
    out = _SELU_SCALE * xp().where(positive, a, negative_part)

    def backward(g, needs):
        return (g * _SELU_SCALE * xp().where(positive, 1.0, negative_part + _SELU_ALPHA)
                .astype(g.dtype),)

    return record(out.astype(a.dtype, copy=False), (x,), backward, "selu")


sigmoid = unary_op("sigmoid", sigmoid_array, lambda a, out: out * (1 - out))
sigmoid.__doc__ = "Logistic sigmoid ``1 / (1 + exp(-x))``, computed without overflow."


def softplus(x):
    """``log(1 + exp(x))``, computed stably."""
    a = float_data(x)
    out = xp().logaddexp(a, 0).astype(a.dtype, copy=False)
    return record(out, (x,), lambda g, needs: (g * sigmoid_array(a),), "softplus")


def silu(x):
    """``x * sigmoid(x)`` (swish)."""
    a = float_data(x)
    s = sigmoid_array(a)
    return record(a * s, (x,), lambda g, needs: (g * (s * (1 + a * (1 - s))),), "silu")


def gelu(x, approximate=True):
    """Gaussian error linear unit; ``approximate=True`` (Keras' default) uses tanh."""
    a = float_data(x)
    if approximate:
        inner = _GELU_C * (a + 0.044715 * a ** 3)
        t = xp().tanh(inner)
        out = 0.5 * a * (1 + t)

        def backward(g, needs):
            d_inner = _GELU_C * (1 + 3 * 0.044715 * a * a)
            return (g * (0.5 * (1 + t) + 0.5 * a * (1 - t * t) * d_inner),)
    else:
        cdf = 0.5 * (1 + state.backend().erf(a / math.sqrt(2.0)))
        out = a * cdf

        def backward(g, needs):
            pdf = xp().exp(-0.5 * a * a) / math.sqrt(2 * math.pi)
            return (g * (cdf + a * pdf),)

    return record(out.astype(a.dtype, copy=False), (x,), backward, "gelu")


def softmax(x, axis=-1):
    """Softmax along ``axis``, numerically stable."""
    a = data_of(x)
    backend = state.backend()
    out = backend.softmax(a, axis=axis)

    def backward(g, needs):
        return (backend.softmax_backward(g, out, axis=axis),)

    return record(out, (x,), backward, "softmax")


def log_softmax(x, axis=-1):
    """Log-softmax along ``axis``, numerically stable."""
    a = data_of(x)
    backend = state.backend()
    out = backend.log_softmax(a, axis=axis)

    def backward(g, needs):
        return (backend.log_softmax_backward(g, out, axis=axis),)

    return record(out, (x,), backward, "log_softmax")


# ------------------------------------------------------------------ fused dense
def dense(x, kernel, bias=None, activation=None):
    """Fused ``activation(x @ kernel + bias)``: one GEMM, the bias and activation in place.

    Shapes: x (..., in), kernel (in, out), bias (out,) -> (..., out). ``activation`` is
    ``None``/``"linear"``, ``"relu"``, ``"sigmoid"`` or ``"tanh"``. The backward computes
    only the gradients of the inputs that need one.
    """
    activation = check_fused_activation("dense", activation)
    backend = state.backend()
    a, w = data_of(x), data_of(kernel)
    if a.dtype is not w.dtype:   # integer input: Keras' promotion (int64 with float32: float32)
        a, w = promote(a, w)
    out, kept = dense_epilogue(backend, backend.linear(a, w),
                               None if bias is None else data_of(bias), activation)

    def backward(g, needs):
        g2, grad_b = dense_epilogue_backward(backend, g, kept, activation,
                                             len(needs) > 2 and needs[2])
        grad_x = grad_w = None
        if needs[0]:
            grad_x = backend.linear(g2, w.T).reshape(a.shape)
        if needs[1]:
            grad_w = backend.linear(a.reshape(-1, a.shape[-1]).T, g2)
        return grad_x, grad_w, grad_b

    inputs = (x, kernel) if bias is None else (x, kernel, bias)
    return record(out, inputs, backward, "dense")


# ------------------------------------------------------------------ dropout and normalization
def dropout(x, rate, generator=None, noise_shape=None):
    """Inverted dropout: zero each element with probability ``rate``, scale the rest by
    ``1 / (1 - rate)``. ``noise_shape`` broadcasts one mask (SpatialDropout)."""
    if not 0.0 <= rate < 1.0:
        raise ValueError(f"dropout rate must be in [0, 1), got {rate}")
    a = data_of(x)
    if rate == 0.0:
        return x if isinstance(x, Tensor) else Tensor(a)
    backend = state.backend()
    generator = generator if generator is not None else state.generator()
    shape = a.shape if noise_shape is None else tuple(
        a.shape[i] if size is None else size for i, size in enumerate(noise_shape))
    def uniform(size):
        return backend.random_uniform(generator, size, a.dtype)
    # data-parallel training: the global batch's mask, this process' rows of it
    batch_axis = noise_shape is None or noise_shape[0] is None
    draw = replica.draw_rows if batch_axis else replica.draw_shared
    keep = draw(uniform, shape) >= rate
    mask = keep.astype(a.dtype) * a.dtype.type(1.0 / (1.0 - rate))
    return record(a * mask, (x,), lambda g, needs: (g * mask,), "dropout")


def batch_normalization_train(x, gamma, beta, epsilon):
    """Training-mode batch norm over all but the last axis.

    Returns (y Tensor, batch mean array, batch variance array); gamma/beta may be None.
    """
    backend = state.backend()
    a = data_of(x)
    g_data = None if gamma is None else data_of(gamma)
    b_data = None if beta is None else data_of(beta)
    y, mean, variance, context = backend.batch_norm_forward(a, g_data, b_data, epsilon)

    def backward(g, needs):
        grad_x, grad_gamma, grad_beta = backend.batch_norm_backward(g, context)
        return grad_x, grad_gamma, grad_beta

    inputs = (x, gamma, beta)
    return record(y, inputs, backward, "batch_normalization"), mean, variance


def layer_normalization(x, gamma, beta, epsilon):
    """Normalization over the last axis with optional scale ``gamma`` and offset ``beta``."""
    backend = state.backend()
    a = data_of(x)
    g_data = None if gamma is None else data_of(gamma)
    b_data = None if beta is None else data_of(beta)
    y, context = backend.layer_norm_forward(a, g_data, b_data, epsilon)

    def backward(g, needs):
        return backend.layer_norm_backward(g, context)

    return record(y, (x, gamma, beta), backward, "layer_normalization")

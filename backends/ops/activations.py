"""More activation ops of ``keras.ops.nn`` (the hard, sparse, shrink and gated ones), each
elementwise op with its derivative beside it (the classic activations are in :mod:`.nn`)."""

from .core import data_of, float_data, record, xp
from .elementwise import unary_op
from .math import multiply
from .activation_kernels import sigmoid as sigmoid_array
from .nn import sigmoid, silu
from .shape import split


softsign = unary_op("softsign", lambda a: a / (1 + xp().abs(a)),
                  lambda a, out: 1 / ((1 + xp().abs(a)) ** 2),
                  doc="``x / (1 + |x|)``.")
hard_sigmoid = unary_op("hard_sigmoid", lambda a: xp().clip(a / 6 + 0.5, 0, 1),
                      lambda a, out: ((a > -3) & (a < 3)) * a.dtype.type(1 / 6),
                      doc="``clip(x / 6 + 0.5, 0, 1)`` (Keras' piecewise-linear sigmoid).")
sparse_sigmoid = unary_op("sparse_sigmoid", lambda a: xp().clip(0.5 * (a + 1), 0, 1),
                        lambda a, out: ((a > -1) & (a < 1)) * a.dtype.type(0.5),
                        doc="0 below -1, 1 above 1, ``(x + 1) / 2`` between.")
hard_tanh = unary_op("hard_tanh", lambda a: xp().clip(a, -1, 1),
                   lambda a, out: (a > -1) & (a < 1), doc="``clip(x, -1, 1)``.")
tanh_shrink = unary_op("tanh_shrink", lambda a: a - xp().tanh(a),
                     lambda a, out: xp().tanh(a) ** 2, doc="``x - tanh(x)``.")
log_sigmoid = unary_op("log_sigmoid", lambda a: -xp().logaddexp(-a, 0).astype(a.dtype, copy=False),
                     lambda a, out: sigmoid_array(-a), doc="``log(sigmoid(x))``, computed stably.")


def _hard_silu_derivative(a, out):
    inside = (a > -3) & (a < 3)
    return xp().where(a >= 3, 1.0, xp().where(inside, a / 3 + 0.5, 0.0)).astype(a.dtype)


hard_silu = unary_op("hard_silu", lambda a: a * xp().clip(a / 6 + 0.5, 0, 1),
                   _hard_silu_derivative, doc="``x * hard_sigmoid(x)``.")
hard_swish = unary_op("hard_swish", lambda a: a * xp().clip(a / 6 + 0.5, 0, 1),
                    _hard_silu_derivative, doc="Alias of ``hard_silu``.")


def _sparse_plus(a):
    return xp().where(a <= -1, 0, xp().where(a < 1, 0.25 * (a + 1) ** 2, a)).astype(a.dtype)


def _sparse_plus_derivative(a, out):
    return xp().where(a <= -1, 0, xp().where(a < 1, 0.5 * (a + 1), 1)).astype(a.dtype)


sparse_plus = unary_op("sparse_plus", _sparse_plus, _sparse_plus_derivative,
                     doc="0 below -1, ``(x + 1) ** 2 / 4`` on [-1, 1), ``x`` above.")


def swish(x):
    """Alias of ``silu``: ``x * sigmoid(x)``."""
    return silu(x)


def celu(x, alpha=1.0):
    """``max(x, 0) + alpha * (exp(min(x, 0) / alpha) - 1)``."""
    a = float_data(x)
    negative_part = xp().exp(xp().minimum(a, 0) / alpha)
    out = xp().maximum(a, 0) + alpha * (negative_part - 1)
    return record(out, (x,), lambda g, needs: (g * xp().where(a > 0, 1, negative_part),),
                  "celu")


def squareplus(x, b=4):
    """``(x + sqrt(x ** 2 + b)) / 2``, a smooth ReLU."""
    a = float_data(x)
    root = xp().sqrt(a * a + b)
    return record((a + root) / 2, (x,), lambda g, needs: (g * 0.5 * (1 + a / root),),
                  "squareplus")


def hard_shrink(x, threshold=0.5):
    """``x`` where ``|x| > threshold``, else 0."""
    a = float_data(x)
    keep = xp().abs(a) > threshold
    return record(xp().where(keep, a, 0).astype(a.dtype), (x,), lambda g, needs: (g * keep,),
                  "hard_shrink")


def soft_shrink(x, threshold=0.5):
    """``x - threshold`` above ``threshold``, ``x + threshold`` below ``-threshold``, else
    0."""
    a = float_data(x)
    out = xp().where(a > threshold, a - threshold,
                     xp().where(a < -threshold, a + threshold, 0)).astype(a.dtype)
    return record(out, (x,), lambda g, needs: (g * (xp().abs(a) > threshold),), "soft_shrink")


def threshold(x, threshold, default_value):
    """``x`` where ``x > threshold``, else ``default_value``."""
    a = float_data(x)
    keep = a > threshold
    return record(xp().where(keep, a, a.dtype.type(default_value)), (x,),
                  lambda g, needs: (g * keep,), "threshold")


def glu(x, axis=-1):
    """Gated linear unit: ``a * sigmoid(b)`` for the two halves ``a, b`` of ``x`` along
    ``axis``."""
    size = data_of(x).shape[axis]
    if size % 2:
        raise ValueError(f"glu: axis {axis} must have an even length, got {size}")
    first, second = split(x, 2, axis=axis)
    return multiply(first, sigmoid(second))


def sparsemax(x, axis=-1):
    """Sparsemax (Martins & Astudillo, 2016): the Euclidean projection of ``x`` onto the
    probability simplex along ``axis`` — a distribution with exact zeros.

    Keras 3.15's own ``sparsemax`` computes its threshold from the sum of the cumulative
    sums, so its outputs do not sum to one; lamina follows the paper (and Keras' doc)."""
    a = float_data(x)
    numpy_like = xp()
    moved = numpy_like.moveaxis(a, axis, -1)
    ordered = -numpy_like.sort(-moved, axis=-1)
    cumulative = numpy_like.cumsum(ordered, axis=-1)
    ranks = numpy_like.arange(1, moved.shape[-1] + 1, dtype=a.dtype)
    support_size = (1 + ranks * ordered > cumulative).sum(axis=-1, keepdims=True)
    tau = (numpy_like.take_along_axis(cumulative, support_size - 1, axis=-1) - 1) / support_size
    out = numpy_like.moveaxis(numpy_like.maximum(moved - tau, 0), -1, axis)
    support = out > 0

    def backward(g, needs):
        count = support.sum(axis=axis, keepdims=True).astype(g.dtype)
        mean_g = (g * support).sum(axis=axis, keepdims=True) / count
        return (support * (g - mean_g),)

    return record(out.astype(a.dtype, copy=False), (x,), backward, "sparsemax")



def _elementwise(x, out, name, derivative):
    """Record ``out = f(x)``; ``derivative()`` returns ``df/dx`` (called in the backward)."""
    return record(out, (x,), lambda g, needs: (g * derivative(),), name)


def _softplus_array(a):
    return xp().logaddexp(a, 0).astype(a.dtype, copy=False)


def relu_variant(x, negative_slope=0.0, max_value=None, threshold=0.0):
    """Keras' ``activations.relu``: ``x`` above ``threshold`` (else 0), capped at
    ``max_value``, minus ``negative_slope * max(threshold - x, 0)``."""
    numpy_like = xp()
    a = data_of(x)
    above = a > threshold
    positive = numpy_like.where(above, a, 0) if threshold else numpy_like.maximum(a, 0)
    passes = above
    if max_value is not None:
        positive = numpy_like.clip(positive, 0, max_value)
        passes = above & (positive > 0) & (positive < max_value)
    below = a < threshold
    out = positive - negative_slope * numpy_like.where(below, threshold - a, 0)
    return _elementwise(x, out.astype(a.dtype, copy=False), "relu",
                        lambda: (passes + negative_slope * below).astype(a.dtype, copy=False))


def mish(x):
    """``x * tanh(softplus(x))``."""
    a = data_of(x)
    t = xp().tanh(_softplus_array(a))
    return _elementwise(x, a * t, "mish", lambda: t + a * (1 - t * t) * sigmoid_array(a))

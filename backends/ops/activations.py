"""The activation ops Keras 3 adds beyond the classic ones (``keras.ops.nn`` names: ``celu``,
``glu``, ``hard_shrink``, ``hard_sigmoid``, ``hard_silu``, ``hard_tanh``, ``log_sigmoid``,
``soft_shrink``, ``softsign``, ``sparse_plus``, ``sparse_sigmoid``, ``sparsemax``,
``squareplus``, ``tanh_shrink``, ``threshold``; plus ``mish`` and the thresholded, capped
``relu_variant`` behind ``keras.activations.relu``), each one op with a hand-written
backward. The classic ones (``relu``, ``elu``, ``softmax``, ...) are in :mod:`.nn`.
"""

from .core import data_of, record, xp
from .nn import _sigmoid


def _elementwise(x, out, name, derivative):
    """Record ``out = f(x)``; ``derivative()`` returns ``df/dx`` (called in the backward)."""
    return record(out, (x,), lambda g, needs: (g * derivative(),), name)


def _band(a, low, high, slope):
    """``slope`` where ``low < a < high``, else 0, in ``a``'s dtype."""
    return ((a > low) & (a < high)).astype(a.dtype) * a.dtype.type(slope)


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


def celu(x, alpha=1.0):
    """Continuously differentiable ELU: ``max(x, 0) + alpha * expm1(min(x, 0) / alpha)``."""
    a = data_of(x)
    negative = xp().exp(xp().minimum(a, 0) / alpha)
    out = xp().maximum(a, 0) + alpha * (negative - 1)
    return _elementwise(x, out, "celu", lambda: xp().where(a > 0, 1, negative))


def glu(x, axis=-1):
    """Gated linear unit: ``x`` split in halves ``a, b`` along ``axis``, ``a * sigmoid(b)``."""
    a = data_of(x)
    if a.shape[axis] % 2:
        raise ValueError(f"glu() splits axis {axis} in halves, so its size must be even; "
                         f"got shape {tuple(a.shape)}")
    first, second = xp().split(a, 2, axis=axis)
    gate = _sigmoid(second)

    def backward(g, needs):
        return (xp().concatenate([g * gate, g * first * gate * (1 - gate)], axis=axis),)

    return record(first * gate, (x,), backward, "glu")


def hard_shrink(x, threshold=0.5):
    """``x`` where ``|x| > threshold``, else 0."""
    a = data_of(x)
    keep = xp().abs(a) > threshold
    return _elementwise(x, xp().where(keep, a, 0).astype(a.dtype, copy=False), "hard_shrink",
                        lambda: keep)


def soft_shrink(x, threshold=0.5):
    """``x - threshold`` above ``threshold``, ``x + threshold`` below ``-threshold``, else 0."""
    a = data_of(x)
    keep = xp().abs(a) > threshold
    out = xp().where(keep, a - xp().sign(a) * threshold, 0).astype(a.dtype, copy=False)
    return _elementwise(x, out, "soft_shrink", lambda: keep)


def hard_sigmoid(x):
    """Piecewise-linear sigmoid ``relu6(x + 3) / 6``."""
    a = data_of(x)
    out = xp().clip(a / 6 + 0.5, 0, 1)
    return _elementwise(x, out, "hard_sigmoid", lambda: _band(a, -3, 3, 1 / 6))


def hard_silu(x):
    """Hard swish ``x * relu6(x + 3) / 6``."""
    a = data_of(x)
    gate = xp().clip(a / 6 + 0.5, 0, 1)
    return _elementwise(x, a * gate, "hard_silu",
                        lambda: gate + a * _band(a, -3, 3, 1 / 6))


hard_swish = hard_silu


def hard_tanh(x):
    """``clip(x, -1, 1)``."""
    a = data_of(x)
    return _elementwise(x, xp().clip(a, -1, 1), "hard_tanh", lambda: (a > -1) & (a < 1))


def log_sigmoid(x):
    """``log(sigmoid(x)) = -softplus(-x)``, computed stably."""
    a = data_of(x)
    return _elementwise(x, -_softplus_array(-a), "log_sigmoid", lambda: _sigmoid(-a))


def mish(x):
    """``x * tanh(softplus(x))``."""
    a = data_of(x)
    t = xp().tanh(_softplus_array(a))
    return _elementwise(x, a * t, "mish", lambda: t + a * (1 - t * t) * _sigmoid(a))


def softsign(x):
    """``x / (1 + |x|)``."""
    a = data_of(x)
    denominator = 1 + xp().abs(a)
    return _elementwise(x, a / denominator, "softsign", lambda: 1 / (denominator * denominator))


def sparse_plus(x):
    """0 for ``x <= -1``, ``x`` for ``x >= 1``, ``(x + 1)**2 / 4`` in between."""
    a = data_of(x)
    middle = (a + 1) / 2
    out = xp().where(a <= -1, 0, xp().where(a >= 1, a, middle * middle))
    return _elementwise(x, out.astype(a.dtype, copy=False), "sparse_plus",
                        lambda: xp().clip(middle, 0, 1))


def sparse_sigmoid(x):
    """``clip((x + 1) / 2, 0, 1)``."""
    a = data_of(x)
    return _elementwise(x, xp().clip((a + 1) / 2, 0, 1), "sparse_sigmoid",
                        lambda: _band(a, -1, 1, 0.5))


def squareplus(x, b=4):
    """``(x + sqrt(x**2 + b)) / 2``."""
    a = data_of(x)
    root = xp().sqrt(a * a + b)
    return _elementwise(x, (a + root) / 2, "squareplus", lambda: (1 + a / root) / 2)


def tanh_shrink(x):
    """``x - tanh(x)``."""
    a = data_of(x)
    t = xp().tanh(a)
    return _elementwise(x, a - t, "tanh_shrink", lambda: t * t)


def threshold(x, threshold, default_value):
    """``x`` where ``x > threshold``, else ``default_value``."""
    a = data_of(x)
    keep = a > threshold
    out = xp().where(keep, a, default_value).astype(a.dtype, copy=False)
    return _elementwise(x, out, "threshold", lambda: keep)


def sparsemax(x, axis=-1):
    """Sparsemax along ``axis``: the Euclidean projection of ``x`` onto the probability
    simplex (a softmax whose outputs can be exactly 0)."""
    numpy_like = xp()
    a = data_of(x)
    moved = numpy_like.moveaxis(a, axis, -1)
    ranked = -numpy_like.sort(-moved, axis=-1)
    cumulative = numpy_like.cumsum(ranked, axis=-1)
    ranks = numpy_like.arange(1, moved.shape[-1] + 1, dtype=a.dtype)
    support = ranked * ranks > cumulative - 1
    size = support.sum(axis=-1, keepdims=True)
    top = numpy_like.take_along_axis(cumulative, size - 1, axis=-1)
    tau = (top - 1) / size.astype(a.dtype)
    out = numpy_like.maximum(moved - tau, 0)
    active = out > 0

    def backward(g, needs):
        g_moved = numpy_like.moveaxis(g, axis, -1) * active
        centred = g_moved - active * (g_moved.sum(axis=-1, keepdims=True) / size)
        return (numpy_like.moveaxis(centred.astype(g.dtype, copy=False), -1, axis),)

    return record(numpy_like.moveaxis(out, -1, axis), (x,), backward, "sparsemax")


__all__ = [
    "celu", "glu", "hard_shrink", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh",
    "log_sigmoid", "mish", "relu_variant", "soft_shrink", "softsign", "sparse_plus",
    "sparse_sigmoid", "sparsemax", "squareplus", "tanh_shrink", "threshold",
]

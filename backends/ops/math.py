"""Elementwise math, comparisons, reductions and matmul, each with its backward.

Every op accepts Tensors, engine/NumPy arrays or Python numbers and returns a Tensor.
Backward functions never modify their upstream gradient in place.
"""

from .core import data_of, expand_reduced, normalize_axis, record, unbroadcast, xp


def _shape(value):
    return getattr(value, "shape", ())


# ------------------------------------------------------------------ binary arithmetic
def add(x1, x2):
    """Elementwise ``x1 + x2`` with broadcasting."""
    a, b = data_of(x1), data_of(x2)

    def backward(g, needs):
        return (unbroadcast(g, _shape(a)) if needs[0] else None,
                unbroadcast(g, _shape(b)) if needs[1] else None)

    return record(a + b, (x1, x2), backward, "add")


def subtract(x1, x2):
    """Elementwise ``x1 - x2`` with broadcasting."""
    a, b = data_of(x1), data_of(x2)

    def backward(g, needs):
        return (unbroadcast(g, _shape(a)) if needs[0] else None,
                unbroadcast(-g, _shape(b)) if needs[1] else None)

    return record(a - b, (x1, x2), backward, "subtract")


def multiply(x1, x2):
    """Elementwise ``x1 * x2`` with broadcasting."""
    a, b = data_of(x1), data_of(x2)

    def backward(g, needs):
        return (unbroadcast(g * b, _shape(a)) if needs[0] else None,
                unbroadcast(g * a, _shape(b)) if needs[1] else None)

    return record(a * b, (x1, x2), backward, "multiply")


def divide(x1, x2):
    """Elementwise true division ``x1 / x2`` with broadcasting."""
    a, b = data_of(x1), data_of(x2)
    out = a / b

    def backward(g, needs):
        g_over_b = g / b
        return (unbroadcast(g_over_b, _shape(a)) if needs[0] else None,
                unbroadcast(-g_over_b * out, _shape(b)) if needs[1] else None)

    return record(out, (x1, x2), backward, "divide")


def power(x1, x2):
    """Elementwise ``x1 ** x2``; the exponent may be a tensor (then x1 must be > 0)."""
    a, b = data_of(x1), data_of(x2)
    out = a ** b

    def backward(g, needs):
        grad_a = grad_b = None
        if needs[0]:
            grad_a = unbroadcast(g * b * a ** (b - 1), _shape(a))
        if needs[1]:
            log_a = xp().log(a).astype(out.dtype, copy=False)  # a Python base gives float64
            grad_b = unbroadcast(g * out * log_a, _shape(b))
        return grad_a, grad_b

    return record(out, (x1, x2), backward, "power")


def maximum(x1, x2):
    """Elementwise maximum; ties send the gradient to ``x1``."""
    a, b = data_of(x1), data_of(x2)
    take_a = a >= b

    def backward(g, needs):
        return (unbroadcast(g * take_a, _shape(a)) if needs[0] else None,
                unbroadcast(g * ~take_a, _shape(b)) if needs[1] else None)

    return record(xp().where(take_a, a, b), (x1, x2), backward, "maximum")


def minimum(x1, x2):
    """Elementwise minimum; ties send the gradient to ``x1``."""
    a, b = data_of(x1), data_of(x2)
    take_a = a <= b

    def backward(g, needs):
        return (unbroadcast(g * take_a, _shape(a)) if needs[0] else None,
                unbroadcast(g * ~take_a, _shape(b)) if needs[1] else None)

    return record(xp().where(take_a, a, b), (x1, x2), backward, "minimum")


def where(condition, x1, x2):
    """``x1`` where ``condition`` is true, else ``x2`` (broadcasting); condition has no grad."""
    c, a, b = data_of(condition).astype(bool), data_of(x1), data_of(x2)

    def backward(g, needs):
        zero = g.dtype.type(0)
        return (None,
                unbroadcast(xp().where(c, g, zero), _shape(a)) if needs[1] else None,
                unbroadcast(xp().where(c, zero, g), _shape(b)) if needs[2] else None)

    return record(xp().where(c, a, b), (condition, x1, x2), backward, "where")


def clip(x, x_min, x_max):
    """Clamp values into ``[x_min, x_max]``; the gradient is zero outside."""
    a = data_of(x)
    inside = (a >= x_min) & (a <= x_max)

    def backward(g, needs):
        return (g * inside,)

    return record(xp().clip(a, x_min, x_max), (x,), backward, "clip")


# ------------------------------------------------------------------ unary math
def _unary(name, forward, derivative):
    """Build an elementwise op from ``forward(a)`` and ``derivative(a, out) -> dout/da``."""

    def op(x):
        a = data_of(x)
        out = forward(a)

        def backward(g, needs):
            return (g * derivative(a, out),)

        return record(out, (x,), backward, name)

    op.__name__ = name
    return op


def negative(x):
    """Elementwise ``-x``."""
    return record(-data_of(x), (x,), lambda g, needs: (-g,), "negative")


square = _unary("square", lambda a: a * a, lambda a, out: 2 * a)
sqrt = _unary("sqrt", lambda a: xp().sqrt(a), lambda a, out: 0.5 / out)
abs = _unary("abs", lambda a: xp().abs(a), lambda a, out: xp().sign(a))  # noqa: A001
exp = _unary("exp", lambda a: xp().exp(a), lambda a, out: out)
log = _unary("log", lambda a: xp().log(a), lambda a, out: 1 / a)
log1p = _unary("log1p", lambda a: xp().log1p(a), lambda a, out: 1 / (1 + a))
tanh = _unary("tanh", lambda a: xp().tanh(a), lambda a, out: 1 - out * out)
square.__doc__ = "Elementwise ``x * x``."
sqrt.__doc__ = "Elementwise square root."
abs.__doc__ = "Elementwise absolute value (gradient ``sign(x)``)."
exp.__doc__ = "Elementwise exponential."
log.__doc__ = "Elementwise natural logarithm."
log1p.__doc__ = "Elementwise ``log(1 + x)``."
tanh.__doc__ = "Elementwise hyperbolic tangent."


def cast(x, dtype):
    """Convert to ``dtype``; gradients flow back (cast to the input dtype) for floats."""
    a = data_of(x)
    source_dtype = a.dtype

    def backward(g, needs):
        return (g.astype(source_dtype) if source_dtype.kind == "f" else None,)

    return record(a.astype(dtype), (x,), backward, "cast")


# ------------------------------------------------------------------ reductions
def sum(x, axis=None, keepdims=False):  # noqa: A001
    """Sum over ``axis`` (None: all axes)."""
    a = data_of(x)
    axes = normalize_axis(axis, a.ndim)

    def backward(g, needs):
        return (expand_reduced(g, axes, keepdims, a.shape),)

    return record(a.sum(axis=axes, keepdims=keepdims), (x,), backward, "sum")


def mean(x, axis=None, keepdims=False):
    """Mean over ``axis`` (None: all axes)."""
    a = data_of(x)
    axes = normalize_axis(axis, a.ndim)
    count = 1
    for ax in axes:
        count *= a.shape[ax]

    def backward(g, needs):
        return (expand_reduced(g / count, axes, keepdims, a.shape),)

    return record(a.mean(axis=axes, keepdims=keepdims), (x,), backward, "mean")


def _extremum(name, reduce):
    def op(x, axis=None, keepdims=False):
        a = data_of(x)
        axes = normalize_axis(axis, a.ndim)
        out = reduce(a, axis=axes, keepdims=True)

        def backward(g, needs):
            hits = (a == out).astype(g.dtype)
            share = hits / hits.sum(axis=axes, keepdims=True)
            return (expand_reduced(g, axes, keepdims, a.shape) * share,)

        result = out if keepdims else out.reshape(
            [s for i, s in enumerate(a.shape) if i not in axes])
        return record(result, (x,), backward, name)

    op.__name__ = name
    return op


max = _extremum("max", lambda a, **kw: a.max(**kw))  # noqa: A001
min = _extremum("min", lambda a, **kw: a.min(**kw))  # noqa: A001
max.__doc__ = "Maximum over ``axis``; tied maxima share the gradient equally."
min.__doc__ = "Minimum over ``axis``; tied minima share the gradient equally."


def var(x, axis=None, keepdims=False):
    """Population variance over ``axis`` (as ``keras.ops.var``)."""
    a = data_of(x)
    axes = normalize_axis(axis, a.ndim)
    centered = a - a.mean(axis=axes, keepdims=True)
    count = 1
    for ax in axes:
        count *= a.shape[ax]

    def backward(g, needs):
        return (expand_reduced(g, axes, keepdims, a.shape) * (2.0 / count) * centered,)

    out = (centered * centered).mean(axis=axes, keepdims=keepdims)
    return record(out, (x,), backward, "var")


def std(x, axis=None, keepdims=False):
    """Population standard deviation over ``axis``."""
    return sqrt(var(x, axis=axis, keepdims=keepdims))


# ------------------------------------------------------------------ matmul
def matmul(x1, x2):
    """Matrix product with NumPy's broadcasting rules (1-d operands included)."""
    a, b = data_of(x1), data_of(x2)
    out = a @ b

    def backward(g, needs):
        a2 = a[None, :] if a.ndim == 1 else a
        b2 = b[:, None] if b.ndim == 1 else b
        g2 = g[..., None] if b.ndim == 1 else g
        if a.ndim == 1:
            g2 = xp().expand_dims(g2, -2)
        grad_a = grad_b = None
        if needs[0]:
            grad_a = unbroadcast(g2 @ xp().swapaxes(b2, -1, -2), a2.shape).reshape(a.shape)
        if needs[1]:
            grad_b = unbroadcast(xp().swapaxes(a2, -1, -2) @ g2, b2.shape).reshape(b.shape)
        return grad_a, grad_b

    return record(out, (x1, x2), backward, "matmul")


# ------------------------------------------------------------------ comparisons (no grad)
def _compare(name, fn):
    def op(x1, x2):
        return record(fn(data_of(x1), data_of(x2)), (), None, name)

    op.__name__ = name
    op.__doc__ = f"Elementwise ``{name}`` comparison; returns a boolean Tensor (no gradient)."
    return op


equal = _compare("equal", lambda a, b: a == b)
not_equal = _compare("not_equal", lambda a, b: a != b)
greater = _compare("greater", lambda a, b: a > b)
greater_equal = _compare("greater_equal", lambda a, b: a >= b)
less = _compare("less", lambda a, b: a < b)
less_equal = _compare("less_equal", lambda a, b: a <= b)


def argmax(x, axis=-1):
    """Index of the maximum along ``axis`` (no gradient)."""
    return record(data_of(x).argmax(axis=axis), (), None, "argmax")


def argmin(x, axis=-1):
    """Index of the minimum along ``axis`` (no gradient)."""
    return record(data_of(x).argmin(axis=axis), (), None, "argmin")

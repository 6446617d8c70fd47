"""Binary elementwise arithmetic, ``clip`` and ``matmul``, each with its backward.

Every op accepts Tensors, engine/NumPy arrays or Python numbers and returns a Tensor.
Backward functions never modify their upstream gradient in place. (Unary math is in
:mod:`.elementwise`, reductions in :mod:`.reductions`, comparisons in :mod:`.logic`.)
"""

from ..dtypes import promote
from .core import constant, data_of, float_data, record, unbroadcast, xp


def _shape(value):
    return getattr(value, "shape", ())


# ------------------------------------------------------------------ binary arithmetic
def add(x1, x2):
    """Elementwise ``x1 + x2`` with broadcasting."""
    a, b = data_of(x1), data_of(x2)
    if getattr(a, "dtype", None) is not getattr(b, "dtype", None):
        a, b = promote(a, b)

    def backward(g, needs):
        return (unbroadcast(g, _shape(a)) if needs[0] else None,
                unbroadcast(g, _shape(b)) if needs[1] else None)

    return record(a + b, (x1, x2), backward, "add")


def subtract(x1, x2):
    """Elementwise ``x1 - x2`` with broadcasting."""
    a, b = data_of(x1), data_of(x2)
    if getattr(a, "dtype", None) is not getattr(b, "dtype", None):
        a, b = promote(a, b)

    def backward(g, needs):
        return (unbroadcast(g, _shape(a)) if needs[0] else None,
                unbroadcast(-g, _shape(b)) if needs[1] else None)

    return record(a - b, (x1, x2), backward, "subtract")


def multiply(x1, x2):
    """Elementwise ``x1 * x2`` with broadcasting."""
    a, b = data_of(x1), data_of(x2)
    if getattr(a, "dtype", None) is not getattr(b, "dtype", None):
        a, b = promote(a, b)

    def backward(g, needs):
        return (unbroadcast(g * b, _shape(a)) if needs[0] else None,
                unbroadcast(g * a, _shape(b)) if needs[1] else None)

    return record(a * b, (x1, x2), backward, "multiply")


def divide(x1, x2):
    """Elementwise true division ``x1 / x2`` with broadcasting; integer and boolean
    inputs divide in ``floatx()`` (Keras' ``result_type(x1, x2, float)``)."""
    a, b = data_of(x1), data_of(x2)
    dtype = getattr(a, "dtype", None)
    if dtype is None or dtype is not getattr(b, "dtype", None) or dtype.kind != "f":
        a, b = promote(a, b, weak=float)
    out = a / b

    def backward(g, needs):
        g_over_b = g / b
        return (unbroadcast(g_over_b, _shape(a)) if needs[0] else None,
                unbroadcast(-g_over_b * out, _shape(b)) if needs[1] else None)

    return record(out, (x1, x2), backward, "divide")


def power(x1, x2):
    """Elementwise ``x1 ** x2``; the exponent may be a tensor (then x1 must be > 0)."""
    a, b = data_of(x1), data_of(x2)
    if getattr(a, "dtype", None) is not getattr(b, "dtype", None):
        a, b = promote(a, b)
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
    if getattr(a, "dtype", None) is not getattr(b, "dtype", None):
        a, b = promote(a, b)
    take_a = a >= b

    def backward(g, needs):
        return (unbroadcast(g * take_a, _shape(a)) if needs[0] else None,
                unbroadcast(g * ~take_a, _shape(b)) if needs[1] else None)

    return record(xp().where(take_a, a, b), (x1, x2), backward, "maximum")


def minimum(x1, x2):
    """Elementwise minimum; ties send the gradient to ``x1``."""
    a, b = data_of(x1), data_of(x2)
    if getattr(a, "dtype", None) is not getattr(b, "dtype", None):
        a, b = promote(a, b)
    take_a = a <= b

    def backward(g, needs):
        return (unbroadcast(g * take_a, _shape(a)) if needs[0] else None,
                unbroadcast(g * ~take_a, _shape(b)) if needs[1] else None)

    return record(xp().where(take_a, a, b), (x1, x2), backward, "minimum")


def clip(x, x_min, x_max):
    """Clamp values into ``[x_min, x_max]``; the gradient is zero outside."""
    a = data_of(x)
    inside = (a >= x_min) & (a <= x_max)

    def backward(g, needs):
        return (g * inside,)

    return record(xp().clip(a, x_min, x_max), (x,), backward, "clip")


# ------------------------------------------------------------------ matmul
def matmul(x1, x2):
    """Matrix product with NumPy's broadcasting rules (1-d operands included)."""
    a, b = data_of(x1), data_of(x2)
    if getattr(a, "dtype", None) is not getattr(b, "dtype", None):
        a, b = promote(a, b)
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


# ------------------------------------------------------------------ more binary arithmetic
def _binary(name, forward, partials, floats=True, doc=None):
    """Build a broadcasting binary op from ``forward(a, b)`` and ``partials(a, b, out) ->
    (dout/da, dout/db)``; ``floats``: integer arrays are cast to ``floatx()`` first."""

    def op(x1, x2):
        if floats:
            a, b = float_data(x1, weak=True), float_data(x2, weak=True)
        else:
            a, b = data_of(x1), data_of(x2)
            if getattr(a, "dtype", None) is not getattr(b, "dtype", None):
                a, b = promote(a, b)
        out = forward(a, b)

        def backward(g, needs):
            da, db = partials(a, b, out)
            return (unbroadcast(g * da, _shape(a)) if needs[0] else None,
                    unbroadcast(g * db, _shape(b)) if needs[1] else None)

        return record(out, (x1, x2), backward, name)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


def _hypot_partials(a, b, out):
    safe = xp().where(out == 0, 1, out)
    return a / safe, b / safe


def _arctan2_partials(a, b, out):
    squared = a * a + b * b
    safe = xp().where(squared == 0, 1, squared)
    return b / safe, -a / safe


arctan2 = _binary("arctan2", lambda a, b: xp().arctan2(a, b), _arctan2_partials,
                  doc="Elementwise ``arctan(x1 / x2)`` in the right quadrant.")
hypot = _binary("hypot", lambda a, b: xp().hypot(a, b), _hypot_partials,
                doc="Elementwise ``sqrt(x1 ** 2 + x2 ** 2)``.")
logaddexp = _binary("logaddexp", lambda a, b: xp().logaddexp(a, b),
                    lambda a, b, out: (xp().exp(a - out), xp().exp(b - out)),
                    doc="Elementwise ``log(exp(x1) + exp(x2))``, computed stably.")
logaddexp2 = _binary("logaddexp2", lambda a, b: xp().logaddexp2(a, b),
                     lambda a, b, out: (xp().exp2(a - out), xp().exp2(b - out)),
                     doc="Elementwise ``log2(2 ** x1 + 2 ** x2)``, computed stably.")
mod = _binary("mod", lambda a, b: xp().mod(a, b),
              lambda a, b, out: (1, -xp().floor_divide(a, b)), floats=False,
              doc="Elementwise remainder with the sign of ``x2`` (Python's ``%``).")
fmod = _binary("fmod", lambda a, b: xp().fmod(a, b),
               lambda a, b, out: (1, -xp().trunc(a / b)), floats=False,
               doc="Elementwise remainder with the sign of ``x1`` (C's ``fmod``).")
fmax = _binary("fmax", lambda a, b: xp().fmax(a, b),
               lambda a, b, out: ((out == a), (out != a)), floats=False,
               doc="Elementwise maximum ignoring NaN; ties send the gradient to ``x1``.")
fmin = _binary("fmin", lambda a, b: xp().fmin(a, b),
               lambda a, b, out: ((out == a), (out != a)), floats=False,
               doc="Elementwise minimum ignoring NaN; ties send the gradient to ``x1``.")


def true_divide(x1, x2):
    """Alias of ``divide``."""
    return divide(x1, x2)


def divide_no_nan(x1, x2):
    """``x1 / x2``, and 0 where ``x2`` is 0 (no NaN or inf from a zero divisor)."""
    a, b = float_data(x1, weak=True), float_data(x2, weak=True)
    zero = xp().equal(b, 0)
    safe = xp().where(zero, 1, b)
    out = xp().where(zero, 0, a / safe)

    def backward(g, needs):
        g = xp().where(zero, 0, g)
        return (unbroadcast(g / safe, _shape(a)) if needs[0] else None,
                unbroadcast(-g * out / safe, _shape(b)) if needs[1] else None)

    return record(out.astype(xp().result_type(a, b), copy=False), (x1, x2), backward,
                  "divide_no_nan")


def floor_divide(x1, x2):
    """Elementwise ``x1 // x2`` (rounds toward minus infinity). No gradient."""
    a, b = data_of(x1), data_of(x2)
    if getattr(a, "dtype", None) is not getattr(b, "dtype", None):
        a, b = promote(a, b)
    return constant(xp().floor_divide(a, b), "floor_divide")


def heaviside(x1, x2):
    """0 where ``x1 < 0``, ``x2`` where ``x1 == 0``, 1 where ``x1 > 0``. No gradient."""
    return constant(xp().heaviside(float_data(x1), float_data(x2, weak=True)), "heaviside")


def ldexp(x1, x2):
    """``x1 * 2 ** x2`` for integer ``x2`` (gradient to ``x1``)."""
    a, b = float_data(x1, weak=True), data_of(x2)
    scale = xp().ldexp(xp().ones_like(a), b)
    return record(xp().ldexp(a, b), (x1,), lambda g, needs: (unbroadcast(g * scale, _shape(a)),),
                  "ldexp")


def nextafter(x1, x2):
    """The next representable float after ``x1`` toward ``x2``. No gradient."""
    return constant(xp().nextafter(float_data(x1), float_data(x2, weak=True)), "nextafter")


def _integer(name, fn, a, b):
    return constant(fn(data_of(a), data_of(b)), name)


def _integer_op(name, ufunc, doc):
    def op(x, y):
        return _integer(name, getattr(xp(), ufunc), x, y)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc + " Integer inputs; no gradient."
    return op


def gcd(x1, x2):
    """Elementwise greatest common divisor. Integer inputs; no gradient."""
    return _integer("gcd", xp().gcd, x1, x2)


def lcm(x1, x2):
    """Elementwise least common multiple. Integer inputs; no gradient."""
    return _integer("lcm", xp().lcm, x1, x2)


bitwise_and = _integer_op("bitwise_and", "bitwise_and", "Elementwise bitwise AND.")
bitwise_or = _integer_op("bitwise_or", "bitwise_or", "Elementwise bitwise OR.")
bitwise_xor = _integer_op("bitwise_xor", "bitwise_xor", "Elementwise bitwise XOR.")
bitwise_left_shift = _integer_op("bitwise_left_shift", "left_shift", "Elementwise ``x << y``.")
bitwise_right_shift = _integer_op("bitwise_right_shift", "right_shift", "Elementwise ``x >> y``.")
left_shift = bitwise_left_shift          # keras.ops has both names
right_shift = bitwise_right_shift


def bitwise_invert(x):
    """Elementwise bitwise NOT (``~x``). Integer or boolean input; no gradient."""
    return constant(xp().invert(data_of(x)), "bitwise_invert")


bitwise_not = bitwise_invert

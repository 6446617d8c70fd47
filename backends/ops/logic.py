"""Comparisons, logical ops, value predicates (``isnan``, ``isclose``, ...), ``where``,
``nonzero`` and ``select``. Comparisons and predicates are piecewise constant and carry no
gradient; ``where`` and ``select`` pass the gradient to the chosen values."""

from .. import state
from ..dtypes import promote
from .core import constant, constant_unary, data_of, record, unbroadcast, xp


def _shape(value):
    return getattr(value, "shape", ())


def _compare(name, fn):
    def op(x1, x2):
        return constant(fn(data_of(x1), data_of(x2)), name)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise ``{name}`` comparison; returns a boolean Tensor (no gradient)."
    return op


equal = _compare("equal", lambda a, b: a == b)
not_equal = _compare("not_equal", lambda a, b: a != b)
greater = _compare("greater", lambda a, b: a > b)
greater_equal = _compare("greater_equal", lambda a, b: a >= b)
less = _compare("less", lambda a, b: a < b)
less_equal = _compare("less_equal", lambda a, b: a <= b)
logical_and = _compare("logical_and", lambda a, b: xp().logical_and(a, b))
logical_or = _compare("logical_or", lambda a, b: xp().logical_or(a, b))
logical_xor = _compare("logical_xor", lambda a, b: xp().logical_xor(a, b))


def _predicate(name, fn, doc):
    return constant_unary(name, fn, doc + " Returns a boolean Tensor (no gradient).")


logical_not = _predicate("logical_not", lambda a: xp().logical_not(a), "Elementwise NOT.")
isnan = _predicate("isnan", lambda a: xp().isnan(a), "Whether each element is NaN.")
isinf = _predicate("isinf", lambda a: xp().isinf(a), "Whether each element is +-inf.")
isfinite = _predicate("isfinite", lambda a: xp().isfinite(a),
                      "Whether each element is finite (not NaN, not inf).")
isposinf = _predicate("isposinf", lambda a: xp().isposinf(a), "Whether each element is +inf.")
isneginf = _predicate("isneginf", lambda a: xp().isneginf(a), "Whether each element is -inf.")
isreal = _predicate("isreal", lambda a: xp().isreal(a),
                    "Whether each element is real (always, for lamina's tensors).")
signbit = _predicate("signbit", lambda a: xp().signbit(a),
                     "Whether each element has its sign bit set (negative, or -0.0).")


def isclose(x1, x2, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise ``|x1 - x2| <= atol + rtol * |x2|`` (boolean, no gradient)."""
    return constant(xp().isclose(data_of(x1), data_of(x2), rtol=rtol, atol=atol,
                                 equal_nan=equal_nan), "isclose")


def allclose(x1, x2, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether ``isclose`` holds for every element (a boolean scalar Tensor)."""
    return constant(xp().asarray(xp().allclose(data_of(x1), data_of(x2), rtol=rtol, atol=atol,
                                               equal_nan=equal_nan)), "allclose")


def isin(x1, x2, assume_unique=False, invert=False):
    """Whether each element of ``x1`` occurs in ``x2`` (boolean, shaped like ``x1``)."""
    return constant(xp().isin(data_of(x1), data_of(x2), assume_unique=assume_unique,
                              invert=invert), "isin")


def nonzero(x):
    """The indices of the non-zero elements: a tuple of int32 Tensors, one per axis (as
    NumPy's ``nonzero`` and Keras' NumPy/JAX backends)."""
    return tuple(constant(index.astype("int32"), "nonzero") for index in
                 xp().nonzero(data_of(x)))


def where(condition, x1=None, x2=None):
    """``x1`` where ``condition`` is true, else ``x2`` (broadcasting; the condition has no
    gradient). With only ``condition``: ``nonzero(condition)``, as ``keras.ops.where``."""
    if x1 is None and x2 is None:
        return nonzero(condition)
    if x1 is None or x2 is None:
        raise ValueError("where: give both x1 and x2, or neither (then it returns the "
                         f"indices of the true elements); got x1={x1!r}, x2={x2!r}")
    c, a, b = data_of(condition), data_of(x1), data_of(x2)
    c = c.astype(bool) if hasattr(c, "astype") else bool(c)
    if getattr(a, "dtype", None) is not getattr(b, "dtype", None):
        a, b = promote(a, b)    # Keras' promotion (int32 with float32: float32)

    def backward(g, needs):
        zero = g.dtype.type(0)
        return (None,
                unbroadcast(xp().where(c, g, zero), _shape(a)) if needs[1] else None,
                unbroadcast(xp().where(c, zero, g), _shape(b)) if needs[2] else None)

    out = xp().where(c, a, b)
    if not hasattr(a, "dtype") and not hasattr(b, "dtype") and out.dtype.kind == "f":
        out = out.astype(state.floatx())     # two Python numbers: floatx, as Keras
    return record(out, (condition, x1, x2), backward, "where")


def select(condlist, choicelist, default=0):
    """The element of the first ``choicelist`` entry whose condition holds, else
    ``default`` (as ``numpy.select``); gradients flow to the chosen entries."""
    if len(condlist) != len(choicelist):
        raise ValueError(f"select: condlist and choicelist must have the same length, got "
                         f"{len(condlist)} and {len(choicelist)}")
    if not condlist:
        raise ValueError("select: condlist must not be empty")
    out = default
    for condition, choice in zip(reversed(condlist), reversed(choicelist)):
        out = where(condition, choice, out)
    return out

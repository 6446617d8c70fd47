"""Helpers every op family shares: reading op inputs and un-broadcasting gradients."""

import numpy as np

from .. import state
from ..autocast import read_variable
from ..autodiff import Tensor, Variable, as_engine_array, record  # noqa: F401  (re-exported to ops)


def data_of(value):
    """The engine array behind an op input; Python numbers stay numbers (weak typing).
    A Variable read inside a mixed-precision layer is cast to its compute dtype."""
    if type(value) is Tensor:
        return value.data
    if isinstance(value, Variable):
        return read_variable(value)
    if isinstance(value, Tensor):
        return value.data
    if type(value) is float or type(value) is int:
        return value
    return as_engine_array(value)


def index_data(value):
    """The engine array behind an integer index input (lists stay integer)."""
    if isinstance(value, Tensor):
        return value.data
    backend = state.backend()
    return value if backend.is_array(value) else backend.asarray(np.asarray(value))


def xp():
    """The active engine's array module."""
    return state.backend().xp


def unbroadcast(gradient, shape):
    """Sum ``gradient`` down to ``shape`` (the inverse of NumPy broadcasting)."""
    shape = tuple(shape)
    if gradient.shape == shape:
        return gradient
    extra = gradient.ndim - len(shape)
    if extra:
        gradient = gradient.sum(axis=tuple(range(extra)))
    kept = tuple(axis for axis, size in enumerate(shape) if size == 1 and gradient.shape[axis] != 1)
    if kept:
        gradient = gradient.sum(axis=kept, keepdims=True)
    return gradient


def normalize_axis(axis, ndim):
    """``axis`` (None, int or tuple) as a sorted tuple of non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (int, np.integer)):
        axis = (int(axis),)
    return tuple(sorted(a % ndim if ndim else 0 for a in axis))


def expand_reduced(gradient, axes, keepdims, shape):
    """Broadcast the gradient of a reduction over ``axes`` back to the input ``shape``."""
    if not keepdims and axes:
        gradient = gradient.reshape([1 if a in axes else s for a, s in enumerate(shape)])
    return xp().broadcast_to(gradient, shape)


def float_data(value, weak=False):
    """:func:`data_of`, with integer and boolean arrays cast to ``floatx()`` (the ops that
    only make sense on floats, ``sin`` or ``sqrt``, give ``floatx()`` for integer input,
    as Keras' do). Python numbers become ``floatx()`` arrays, or stay Python floats
    (weakly typed operands of binary ops) when ``weak``."""
    a = data_of(value)
    if type(a) is int or type(a) is float:
        return float(a) if weak else as_engine_array(a)
    if a.dtype.kind in "iub":
        return a.astype(state.floatx())
    return a


def constant(output, name):
    """A Tensor holding ``output`` with no gradient (piecewise-constant results: indices,
    comparisons, rounding)."""
    return record(output, (), None, name)


def constant_unary(name, fn, doc):
    """An elementwise op ``fn(array)`` whose result carries no gradient (rounding, sign,
    predicates), named ``name`` with docstring ``doc``."""

    def op(x):
        return constant(fn(data_of(x)), name)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


def without_gradient(name):
    """A backward for ops lamina does not differentiate: raises, naming the op, rather than
    returning a silently wrong zero gradient."""

    def backward(g, needs):
        raise NotImplementedError(f"ops.{name} has no gradient in lamina; compute it "
                                  f"from differentiable ops or under stop_gradient")

    return backward

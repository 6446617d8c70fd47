"""Array creation: filled arrays, ranges, identity and triangular matrices, diagonals,
grids, Vandermonde matrices and signal windows, with ``keras.ops``' arguments.

Floating results default to ``floatx()``; ``arange`` infers ``int32`` from integer
arguments, as Keras does. ``tril``/``triu``/``diag``/``diagflat``/``meshgrid``/``vander`` and
the ``*_like`` ops of tensors are differentiable where a gradient makes sense.
"""

import numpy as np

from .. import state
from .core import constant, data_of, float_data, record, xp
from .math import power
from .shape import broadcast_to, expand_dims, reshape


def _float_dtype(dtype):
    return dtype or state.floatx()


def _shape_tuple(shape):
    return (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)


def zeros(shape, dtype=None):
    """A tensor of zeros (``floatx()`` unless ``dtype``)."""
    return constant(xp().zeros(_shape_tuple(shape), dtype=_float_dtype(dtype)), "zeros")


def ones(shape, dtype=None):
    """A tensor of ones (``floatx()`` unless ``dtype``)."""
    return constant(xp().ones(_shape_tuple(shape), dtype=_float_dtype(dtype)), "ones")


def empty(shape, dtype=None):
    """A tensor of ``shape`` (lamina fills it with zeros)."""
    return zeros(shape, dtype)


def full(shape, fill_value, dtype=None):
    """A tensor of ``shape`` filled with ``fill_value`` (a number or broadcastable array)."""
    value = data_of(fill_value)
    if dtype is None:
        dtype = value.dtype if hasattr(value, "dtype") else (
            "int32" if isinstance(value, int) and not isinstance(value, bool) else
            "bool" if isinstance(value, bool) else state.floatx())
    out = xp().empty(_shape_tuple(shape), dtype=dtype)
    out[...] = value
    return constant(out, "full")


def _like_dtype(x, dtype):
    return dtype or data_of(x).dtype


def zeros_like(x, dtype=None):
    """Zeros with the shape (and, unless ``dtype``, the dtype) of ``x``."""
    a = data_of(x)
    return constant(xp().zeros(a.shape, dtype=_like_dtype(x, dtype)), "zeros_like")


def ones_like(x, dtype=None):
    """Ones with the shape (and, unless ``dtype``, the dtype) of ``x``."""
    a = data_of(x)
    return constant(xp().ones(a.shape, dtype=_like_dtype(x, dtype)), "ones_like")


def empty_like(x, dtype=None):
    """A tensor shaped like ``x`` (lamina fills it with zeros)."""
    return zeros_like(x, dtype)


def full_like(x, fill_value, dtype=None):
    """``fill_value`` in the shape (and, unless ``dtype``, the dtype) of ``x``."""
    return full(data_of(x).shape, fill_value, _like_dtype(x, dtype))


# ------------------------------------------------------------------ ranges
def arange(start, stop=None, step=None, dtype=None):
    """Evenly spaced values in ``[start, stop)``; int32 for integer arguments, else
    ``floatx()``, unless ``dtype``."""
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    if dtype is None:
        numbers = [data_of(v) for v in (start, stop, step)]
        integral = all(isinstance(v, (int, np.integer)) or (
            hasattr(v, "dtype") and v.dtype.kind in "iu") for v in numbers)
        dtype = "int32" if integral else state.floatx()
    return constant(xp().arange(start, stop, step).astype(dtype), "arange")


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop`` (arrays give one range per
    element, stacked along ``axis``); with ``retstep`` also the spacing."""
    dtype = _float_dtype(dtype)
    out, step = xp().linspace(data_of(start), data_of(stop), num=num, endpoint=endpoint,
                              retstep=True, axis=axis)
    out = constant(out.astype(dtype), "linspace")
    return (out, step) if retstep else out


def logspace(start, stop, num=50, endpoint=True, base=10, dtype=None, axis=0):
    """``base ** linspace(start, stop)``."""
    out = xp().logspace(data_of(start), data_of(stop), num=num, endpoint=endpoint, base=base,
                        axis=axis)
    return constant(out.astype(_float_dtype(dtype)), "logspace")


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """``num`` values from ``start`` to ``stop`` spaced evenly on a log scale."""
    out = xp().geomspace(data_of(start), data_of(stop), num=num, endpoint=endpoint, axis=axis)
    return constant(out.astype(_float_dtype(dtype)), "geomspace")


# ------------------------------------------------------------------ matrices
def eye(N, M=None, k=0, dtype=None):  # noqa: N803  (Keras' argument names)
    """An ``N x M`` matrix with ones on the ``k``-th diagonal."""
    return constant(xp().eye(int(N), None if M is None else int(M), k=k,
                             dtype=_float_dtype(dtype)), "eye")


def identity(n, dtype=None):
    """The ``n x n`` identity matrix."""
    return eye(n, dtype=dtype)


def tri(N, M=None, k=0, dtype=None):  # noqa: N803
    """An ``N x M`` matrix with ones at and below the ``k``-th diagonal."""
    return constant(xp().tri(int(N), None if M is None else int(M), k=k,
                             dtype=_float_dtype(dtype)), "tri")


def _triangle(name, select):
    def op(x, k=0):
        a = data_of(x)
        rows, cols = a.shape[-2:]
        keep = select(xp().ones((rows, cols), dtype=bool), k)
        return record(xp().where(keep, a, a.dtype.type(0)), (x,),
                      lambda g, needs: (g * keep,), name)

    op.__name__ = op.__qualname__ = name
    return op


tril = _triangle("tril", lambda ones, k: xp().tril(ones, k))
triu = _triangle("triu", lambda ones, k: xp().triu(ones, k))
tril.__doc__ = "The lower triangle of (the last two axes of) ``x``; zeros above diagonal k."
triu.__doc__ = "The upper triangle of (the last two axes of) ``x``; zeros below diagonal k."


def diag(x, k=0):
    """The ``k``-th diagonal of a 2-d ``x``, or the square matrix with 1-d ``x`` on it."""
    a = data_of(x)
    if a.ndim not in (1, 2):
        raise ValueError(f"diag expects a 1-d or 2-d input, got shape {tuple(a.shape)}")
    out = xp().diag(a, k).copy()
    if a.ndim == 1:
        return record(out, (x,), lambda g, needs: (xp().diagonal(g, k).copy(),), "diag")

    def backward(g, needs):
        full_grad = xp().zeros(a.shape, dtype=g.dtype)
        steps = xp().arange(g.shape[0])
        full_grad[steps + max(-k, 0), steps + max(k, 0)] = g
        return (full_grad,)

    return record(out, (x,), backward, "diag")


def diagflat(x, k=0):
    """The square matrix with the flattened ``x`` on its ``k``-th diagonal."""
    return diag(reshape(x, (-1,)), k)


def meshgrid(*x, indexing="xy"):
    """Coordinate grids from 1-d ``x`` (``indexing="xy"``: Cartesian, ``"ij"``: matrix)."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    sizes = [data_of(v).shape[0] for v in x]
    count = len(x)
    if indexing == "xy" and count > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    grids = []
    for i, vector in enumerate(x):
        axis = i
        if indexing == "xy" and count > 1 and i < 2:
            axis = 1 - i
        shape = [1] * count
        shape[axis] = data_of(vector).shape[0]
        grids.append(broadcast_to(reshape(vector, shape), sizes))
    return grids


def vander(x, N=None, increasing=False):  # noqa: N803
    """The Vandermonde matrix of 1-d ``x``: columns ``x ** (N - 1), ..., x, 1`` (reversed
    when ``increasing``)."""
    a = float_data(x)
    columns = a.shape[0] if N is None else int(N)
    exponents = xp().arange(columns, dtype=a.dtype)
    if not increasing:
        exponents = exponents[::-1].copy()
    source = x if a is data_of(x) else a        # integer input: its floatx() copy
    return power(expand_dims(source, -1), exponents)


def _window(name, fn, doc):
    def op(x):
        return constant(fn(int(data_of(x))).astype(state.floatx()), name)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


bartlett = _window("bartlett", lambda m: xp().bartlett(m), "The Bartlett window of length x.")
blackman = _window("blackman", lambda m: xp().blackman(m), "The Blackman window of length x.")
hamming = _window("hamming", lambda m: xp().hamming(m), "The Hamming window of length x.")
hanning = _window("hanning", lambda m: xp().hanning(m), "The Hann window of length x.")


def kaiser(x, beta):
    """The Kaiser window of length ``x`` with shape parameter ``beta``."""
    return constant(xp().kaiser(int(data_of(x)), float(beta)).astype(state.floatx()), "kaiser")


"""Reductions (sum, mean, extrema, variance, product, logsumexp, quantiles), cumulative
sums and products, index-of-extremum, and their NaN-ignoring variants, with ``keras.ops``'
arguments (``axis=None`` reduces over every axis). Each differentiable reduction has its
backward beside it; ``argmax``, ``any``, ``count_nonzero`` and friends carry no gradient.
"""

import numpy as np

from .. import state
from ..autodiff import Tensor
from .core import (constant, data_of, expand_reduced, float_data, normalize_axis, record, xp)
from .math import add, divide, maximum, minimum, multiply, subtract
from .shape import getitem, moveaxis, reshape


def _count(shape, axes):
    count = 1
    for ax in axes:
        count *= shape[ax]
    return count


def _drop_axes(shape, axes):
    return tuple(s for i, s in enumerate(shape) if i not in axes)


def sum(x, axis=None, keepdims=False):  # noqa: A001
    """Sum over ``axis`` (None: all axes)."""
    a = data_of(x)
    axes = normalize_axis(axis, a.ndim)

    def backward(g, needs):
        return (expand_reduced(g, axes, keepdims, a.shape),)

    return record(a.sum(axis=axes, keepdims=keepdims), (x,), backward, "sum")


def mean(x, axis=None, keepdims=False):
    """Mean over ``axis`` (None: all axes)."""
    a = float_data(x)
    axes = normalize_axis(axis, a.ndim)
    count = _count(a.shape, axes)

    def backward(g, needs):
        return (expand_reduced(g / count, axes, keepdims, a.shape),)

    return record(a.mean(axis=axes, keepdims=keepdims), (x,), backward, "mean")


def _extremum(name, reduce, combine, doc):
    def op(x, axis=None, keepdims=False, initial=None):
        a = data_of(x)
        axes = normalize_axis(axis, a.ndim)
        out = reduce(a, axis=axes, keepdims=True)

        def backward(g, needs):
            hits = (a == out).astype(g.dtype)
            share = hits / hits.sum(axis=axes, keepdims=True)
            return (expand_reduced(g, axes, keepdims, a.shape) * share,)

        result = out if keepdims else out.reshape(_drop_axes(a.shape, axes))
        result = record(result, (x,), backward, name)
        return result if initial is None else combine(result, initial)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


max = _extremum("max", lambda a, **kw: a.max(**kw), maximum,  # noqa: A001
                "Maximum over ``axis`` (and ``initial``, when given); tied maxima share the "
                "gradient equally.")
min = _extremum("min", lambda a, **kw: a.min(**kw), minimum,  # noqa: A001
                "Minimum over ``axis`` (and ``initial``, when given); tied minima share the "
                "gradient equally.")


def amax(x, axis=None, keepdims=False):
    """Alias of ``max``."""
    return max(x, axis=axis, keepdims=keepdims)


def amin(x, axis=None, keepdims=False):
    """Alias of ``min``."""
    return min(x, axis=axis, keepdims=keepdims)


def ptp(x, axis=None, keepdims=False):
    """Range ``max - min`` over ``axis``."""
    return subtract(max(x, axis, keepdims), min(x, axis, keepdims))


def var(x, axis=None, keepdims=False):
    """Population variance over ``axis`` (as ``keras.ops.var``)."""
    a = float_data(x)
    axes = normalize_axis(axis, a.ndim)
    centered = a - a.mean(axis=axes, keepdims=True)
    count = _count(a.shape, axes)

    def backward(g, needs):
        return (expand_reduced(g, axes, keepdims, a.shape) * (2.0 / count) * centered,)

    out = (centered * centered).mean(axis=axes, keepdims=keepdims)
    return record(out, (x,), backward, "var")


def std(x, axis=None, keepdims=False):
    """Population standard deviation over ``axis``."""
    from .elementwise import sqrt

    return sqrt(var(x, axis=axis, keepdims=keepdims))


def _reduced_last(a, axes):
    """``a`` with the reduced ``axes`` moved to the end and flattened into one."""
    kept = [i for i in range(a.ndim) if i not in axes]
    moved = a.transpose(kept + list(axes))
    return moved.reshape(moved.shape[:len(kept)] + (-1,)), kept


def _exclusive_products(flat):
    """Per element, the product of the other elements of its row (zeros handled)."""
    numpy_like = xp()
    ones = numpy_like.ones(flat.shape[:-1] + (1,), dtype=flat.dtype)
    left = numpy_like.cumprod(numpy_like.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
    right = numpy_like.flip(numpy_like.cumprod(numpy_like.concatenate(
        [ones, numpy_like.flip(flat[..., 1:], axis=-1)], axis=-1), axis=-1), axis=-1)
    return left * right


def prod(x, axis=None, keepdims=False, dtype=None):
    """Product over ``axis``; the gradient is exact also where elements are zero."""
    a = data_of(x)
    axes = normalize_axis(axis, a.ndim)
    out = a.prod(axis=axes, keepdims=keepdims, dtype=dtype)

    def backward(g, needs):
        flat, kept = _reduced_last(a, axes)
        others = _exclusive_products(flat)
        moved_shape = tuple(a.shape[i] for i in kept) + tuple(a.shape[i] for i in axes)
        order = kept + list(axes)
        inverse = [order.index(i) for i in range(a.ndim)]
        others = others.reshape(moved_shape).transpose(inverse)
        return (expand_reduced(g, axes, keepdims, a.shape) * others,)

    return record(out, (x,), backward, "prod")


def logsumexp(x, axis=None, keepdims=False):
    """``log(sum(exp(x), axis))``, computed stably."""
    a = float_data(x)
    numpy_like = xp()
    axes = normalize_axis(axis, a.ndim)
    peak = a.max(axis=axes, keepdims=True)
    peak = numpy_like.where(numpy_like.isfinite(peak), peak, 0)
    kept = numpy_like.log(numpy_like.exp(a - peak).sum(axis=axes, keepdims=True)) + peak

    def backward(g, needs):
        return (expand_reduced(g, axes, keepdims, a.shape) * numpy_like.exp(a - kept),)

    out = kept if keepdims else kept.reshape(_drop_axes(a.shape, axes))
    return record(out, (x,), backward, "logsumexp")


# ------------------------------------------------------------------ cumulative
def _flat_axis(x, axis):
    """``(x, axis)``, with ``x`` flattened when ``axis`` is None (as NumPy's cumsum)."""
    return (reshape(x, (-1,)), 0) if axis is None else (x, axis)


def cumsum(x, axis=None, dtype=None):
    """Cumulative sum along ``axis`` (None: of the flattened ``x``)."""
    x, axis = _flat_axis(x, axis)
    a = data_of(x)
    numpy_like = xp()

    def backward(g, needs):
        return (numpy_like.flip(numpy_like.cumsum(numpy_like.flip(g, axis), axis), axis),)

    return record(numpy_like.cumsum(a, axis=axis, dtype=dtype), (x,), backward, "cumsum")


def cumprod(x, axis=None, dtype=None):
    """Cumulative product along ``axis`` (None: of the flattened ``x``); the gradient is
    exact also where elements are zero."""
    x, axis = _flat_axis(x, axis)
    a = data_of(x)
    numpy_like = xp()
    out = numpy_like.cumprod(a, axis=axis, dtype=dtype)

    def backward(g, needs):
        rows = numpy_like.moveaxis(a, axis, -1)
        upstream = numpy_like.moveaxis(g, axis, -1)
        n = rows.shape[-1]
        # d out_i / d a_k = prod_{j <= i, j != k} a_j for i >= k: the products of each row
        # with element k replaced by one, cumulated (an (n, n) table per row).
        eye = numpy_like.eye(n, dtype=bool)
        replaced = numpy_like.where(eye, 1, rows[..., None, :])         # (..., k, j)
        partial = numpy_like.cumprod(replaced, axis=-1)                 # (..., k, i)
        later = numpy_like.triu(numpy_like.ones((n, n), dtype=bool))    # i >= k
        grad = (partial * later * upstream[..., None, :]).sum(axis=-1)
        return (numpy_like.moveaxis(grad.astype(g.dtype, copy=False), -1, axis),)

    return record(out, (x,), backward, "cumprod")


def diff(a, n=1, axis=-1):
    """The ``n``-th discrete difference ``a[i + 1] - a[i]`` along ``axis``."""
    out = a
    for _ in range(n):
        moved = moveaxis(out, axis, -1)
        out = moveaxis(subtract(getitem(moved, (Ellipsis, slice(1, None))),
                                getitem(moved, (Ellipsis, slice(None, -1)))), -1, axis)
    return out


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """Integral of ``y`` along ``axis`` by the trapezoidal rule (sample points ``x`` or
    spacing ``dx``)."""
    moved = moveaxis(y, axis, -1)
    pairs = multiply(add(getitem(moved, (Ellipsis, slice(1, None))),
                         getitem(moved, (Ellipsis, slice(None, -1)))), 0.5)
    width = dx
    if x is not None:
        points = x if getattr(data_of(x), "ndim", 1) == 1 else moveaxis(x, axis, -1)
        width = diff(points, axis=-1)
    return sum(multiply(pairs, width), axis=-1)


# ------------------------------------------------------------------ no gradient
def argmax(x, axis=None, keepdims=False):
    """Index (int32) of the maximum along ``axis``; ``axis=None``: in the flattened ``x``,
    as ``keras.ops.argmax``. No gradient."""
    a = data_of(x)
    return constant(a.argmax(axis=axis, keepdims=keepdims).astype("int32"), "argmax")


def argmin(x, axis=None, keepdims=False):
    """Index (int32) of the minimum along ``axis``; ``axis=None``: in the flattened ``x``.
    No gradient."""
    a = data_of(x)
    return constant(a.argmin(axis=axis, keepdims=keepdims).astype("int32"), "argmin")


def any(x, axis=None, keepdims=False):  # noqa: A001
    """Whether any element along ``axis`` is true (non-zero)."""
    return constant(xp().any(data_of(x), axis=axis, keepdims=keepdims), "any")


def all(x, axis=None, keepdims=False):  # noqa: A001
    """Whether every element along ``axis`` is true (non-zero)."""
    return constant(xp().all(data_of(x), axis=axis, keepdims=keepdims), "all")


def count_nonzero(x, axis=None):
    """The number (int32) of non-zero elements along ``axis``."""
    return constant(xp().asarray(xp().count_nonzero(data_of(x), axis=axis)).astype("int32"),
                    "count_nonzero")


# ------------------------------------------------------------------ quantiles
_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def _positions(q, valid, method):
    """Lower and upper sorted positions and the weight of the upper, per quantile."""
    numpy_like = xp()
    pos = q * (valid - 1)
    low, high = numpy_like.floor(pos), numpy_like.ceil(pos)
    if method == "linear":
        weight = pos - low
    elif method == "midpoint":
        weight = numpy_like.where(high > low, 0.5, 0.0)
    else:
        if method == "lower":
            low = high = numpy_like.floor(pos)
        elif method == "higher":
            low = high = numpy_like.ceil(pos)
        else:
            low = high = numpy_like.round(pos)
        weight = numpy_like.zeros_like(pos)
    return low.astype("int64"), high.astype("int64"), weight


def _quantiles(q, scale=1.0):
    """``q`` (number, list, array or Tensor) as a float64 engine array divided by
    ``scale``: float64, so that 0.1 lands on the positions NumPy uses."""
    backend = state.backend()
    q = q.data if isinstance(q, Tensor) else q
    host = backend.to_numpy(q) if backend.is_array(q) else q
    return xp().asarray(np.asarray(host, dtype="float64")) / scale


def _quantile(x, q, axis, method, keepdims, name, ignore_nan=False):
    if method not in _METHODS:
        raise ValueError(f"{name}: method must be one of {_METHODS}, got {method!r}")
    numpy_like = xp()
    a = float_data(x)
    axes = normalize_axis(axis, a.ndim)
    q_data = _quantiles(q)
    if bool(((q_data < 0) | (q_data > 1)).any()):
        raise ValueError(f"{name}: quantiles must lie in [0, 1] (percentiles in [0, 100])")
    flat, kept = _reduced_last(a, axes)
    order = numpy_like.argsort(flat, axis=-1)
    ordered = numpy_like.take_along_axis(flat, order, axis=-1)
    missing = numpy_like.isnan(flat)
    valid = (flat.shape[-1] - missing.sum(axis=-1, keepdims=True)) if ignore_nan \
        else numpy_like.full(flat.shape[:-1] + (1,), flat.shape[-1])
    low, high, weight = _positions(q_data.reshape(-1), valid, method)
    low, high = numpy_like.clip(low, 0, None), numpy_like.clip(high, 0, None)
    weight = weight.astype(a.dtype)
    values = ((1 - weight) * numpy_like.take_along_axis(ordered, low, axis=-1)
              + weight * numpy_like.take_along_axis(ordered, high, axis=-1))
    undefined = (valid == 0) if ignore_nan else missing.any(axis=-1, keepdims=True)
    values = numpy_like.where(undefined, numpy_like.nan, values).astype(a.dtype, copy=False)
    kept_shape = tuple(a.shape[i] for i in kept)
    out_shape = tuple(1 if i in axes else s for i, s in enumerate(a.shape)) if keepdims \
        else kept_shape
    out = numpy_like.moveaxis(values, -1, 0).reshape(q_data.shape + out_shape)

    def backward(g, needs):
        columns = numpy_like.moveaxis(g.reshape((-1,) + kept_shape), 0, -1)
        columns = columns.reshape(flat.shape[:-1] + (-1,))        # (..., quantiles)
        slots = numpy_like.arange(flat.shape[-1])
        spread = ((slots == low[..., None]) * ((1 - weight) * columns)[..., None]
                  + (slots == high[..., None]) * (weight * columns)[..., None]).sum(axis=-2)
        grad_flat = numpy_like.zeros_like(flat)
        numpy_like.put_along_axis(grad_flat, order, spread.astype(g.dtype), axis=-1)
        moved_shape = kept_shape + tuple(a.shape[i] for i in axes)
        permutation = kept + list(axes)
        inverse = [permutation.index(i) for i in range(a.ndim)]
        return (grad_flat.reshape(moved_shape).transpose(inverse),)

    return record(out, (x,), backward, name)


def quantile(x, q, axis=None, method="linear", keepdims=False):
    """The ``q``-th quantile(s) (``q`` in [0, 1], a number or 1-d) over ``axis``, with
    NumPy's ``method`` (linear, lower, higher, midpoint, nearest); NaN where a slice
    holds NaN. Differentiable through the selected (interpolated) elements."""
    return _quantile(x, q, axis, method, keepdims, "quantile")


def percentile(x, q, axis=None, method="linear", keepdims=False):
    """``quantile`` with ``q`` in percent (0 to 100)."""
    return _quantile(x, _quantiles(q, 100.0), axis, method, keepdims, "percentile")


def median(x, axis=None, keepdims=False):
    """The median over ``axis`` (the mean of the two middle values for even counts)."""
    return _quantile(x, 0.5, axis, "linear", keepdims, "median")


# ------------------------------------------------------------------ weighted mean
def average(x, axis=None, weights=None):
    """Mean of ``x`` over ``axis`` weighted by ``weights`` (same shape as ``x``, or 1-d
    along ``axis``); differentiable in both."""
    if weights is None:
        return mean(x, axis=axis)
    w = weights
    a, w_data = data_of(x), data_of(weights)
    if axis is not None and getattr(w_data, "ndim", 0) == 1 and a.ndim > 1:
        shape = [1] * a.ndim
        shape[axis % a.ndim] = w_data.shape[0]
        w = reshape(weights, shape)
    total = sum(multiply(x, w), axis=axis)
    return divide(total, sum(multiply(xp().ones_like(a), w), axis=axis))


# ------------------------------------------------------------------ NaN-ignoring variants
def _without_nan(x, fill):
    """``x`` with NaN replaced by ``fill`` (gradient 1 elsewhere, 0 at the NaN)."""
    a = float_data(x)
    missing = xp().isnan(a)
    out = xp().where(missing, a.dtype.type(fill), a)
    return record(out, (x,), lambda g, needs: (g * ~missing,), "nan_mask")


def _valid_count(x, axis, keepdims):
    a = float_data(x)
    return constant((~xp().isnan(a)).sum(axis=axis, keepdims=keepdims).astype(a.dtype),
                    "nan_count")


def nansum(x, axis=None, keepdims=False):
    """``sum`` treating NaN as zero."""
    return sum(_without_nan(x, 0), axis=axis, keepdims=keepdims)


def nanprod(x, axis=None, keepdims=False):
    """``prod`` treating NaN as one."""
    return prod(_without_nan(x, 1), axis=axis, keepdims=keepdims)


def nanmean(x, axis=None, keepdims=False):
    """``mean`` of the non-NaN elements."""
    return divide(nansum(x, axis, keepdims), _valid_count(x, axis, keepdims))


def nanvar(x, axis=None, keepdims=False):
    """``var`` of the non-NaN elements."""
    a = float_data(x)
    present = (~xp().isnan(a)).astype(a.dtype)
    centered = multiply(subtract(_without_nan(x, 0), nanmean(x, axis, keepdims=True)), present)
    return divide(sum(multiply(centered, centered), axis=axis, keepdims=keepdims),
                  _valid_count(x, axis, keepdims))


def nanstd(x, axis=None, keepdims=False):
    """``std`` of the non-NaN elements."""
    from .elementwise import sqrt

    return sqrt(nanvar(x, axis=axis, keepdims=keepdims))


def nanmax(x, axis=None, keepdims=False):
    """``max`` ignoring NaN."""
    return max(_without_nan(x, -float("inf")), axis=axis, keepdims=keepdims)


def nanmin(x, axis=None, keepdims=False):
    """``min`` ignoring NaN."""
    return min(_without_nan(x, float("inf")), axis=axis, keepdims=keepdims)


def nanargmax(x, axis=None, keepdims=False):
    """``argmax`` ignoring NaN."""
    return argmax(_without_nan(x, -float("inf")), axis=axis, keepdims=keepdims)


def nanargmin(x, axis=None, keepdims=False):
    """``argmin`` ignoring NaN."""
    return argmin(_without_nan(x, float("inf")), axis=axis, keepdims=keepdims)


def nancumsum(x, axis=None, dtype=None):
    """``cumsum`` treating NaN as zero."""
    return cumsum(_without_nan(x, 0), axis=axis, dtype=dtype)


def nancumprod(x, axis=None, dtype=None):
    """``cumprod`` treating NaN as one."""
    return cumprod(_without_nan(x, 1), axis=axis, dtype=dtype)


def nanmedian(x, axis=None, keepdims=False):
    """``median`` of the non-NaN elements."""
    return _quantile(x, 0.5, axis, "linear", keepdims, "nanmedian", ignore_nan=True)


def nanquantile(x, q, axis=None, method="linear", keepdims=False):
    """``quantile`` of the non-NaN elements."""
    return _quantile(x, q, axis, method, keepdims, "nanquantile", ignore_nan=True)


def nanpercentile(x, q, axis=None, method="linear", keepdims=False):
    """``percentile`` of the non-NaN elements."""
    return _quantile(x, _quantiles(q, 100.0), axis, method, keepdims, "nanpercentile",
                     ignore_nan=True)


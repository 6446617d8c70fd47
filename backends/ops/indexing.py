"""Gathers and scatters: ``take_along_axis``, ``slice``/``slice_update``, ``scatter``/
``scatter_update``, diagonals and traces, one-hot encodings, ``unravel_index`` and the
segment reductions, each differentiable (where a gradient exists) with its backward."""

import builtins

import numpy as np

from .. import state
from .core import constant, data_of, index_data, record, without_gradient, xp
from .reductions import sum as reduce_sum
from .shape import slice_of, broadcast_to, ravel


def _open_grid(shape, axis, index):
    """Index arrays addressing every element of ``shape``, with ``index`` along ``axis``."""
    numpy_like = xp()
    grid = []
    for d, size in enumerate(shape):
        if d == axis:
            grid.append(index)
        else:
            view = [1] * len(shape)
            view[d] = size
            grid.append(numpy_like.arange(size).reshape(view))
    return tuple(grid)


def take_along_axis(x, indices, axis=None):
    """Elements of ``x`` at ``indices`` along ``axis`` (None: of the flattened ``x``); the
    other axes broadcast between ``x`` and ``indices``, as in Keras."""
    if axis is None:
        x, indices, axis = ravel(x), index_data(indices).reshape(-1), 0
    a, idx = data_of(x), index_data(indices).astype("int64")
    axis = axis % a.ndim
    if idx.ndim != a.ndim:
        raise ValueError(f"take_along_axis: indices must have the rank of x ({a.ndim}), "
                         f"got shape {tuple(idx.shape)}")
    common = list(np.broadcast_shapes(
        tuple(1 if d == axis else s for d, s in enumerate(a.shape)),
        tuple(1 if d == axis else s for d, s in enumerate(idx.shape))))
    x_shape, index_shape = list(common), list(common)
    x_shape[axis], index_shape[axis] = a.shape[axis], idx.shape[axis]
    if tuple(x_shape) != tuple(a.shape):
        x = broadcast_to(x, x_shape)
        a = data_of(x)
    idx = xp().broadcast_to(idx, index_shape)
    idx = xp().where(idx < 0, idx + a.shape[axis], idx)
    grid = _open_grid(index_shape, axis, idx)

    def backward(g, needs):
        full = xp().zeros(a.shape, dtype=g.dtype)
        xp().add.at(full, grid, g)
        return (full,)

    return record(a[grid], (x,), backward, "take_along_axis")


def _region(start_indices, shape):
    return tuple(builtins.slice(int(s), int(s) + int(n)) for s, n in zip(start_indices, shape))


def slice(inputs, start_indices, shape):  # noqa: A001  (Keras' name)
    """The block of ``inputs`` of ``shape`` starting at ``start_indices``."""
    if len(start_indices) != len(shape):
        raise ValueError(f"slice: start_indices {tuple(start_indices)} and shape "
                         f"{tuple(shape)} must have the same length")
    a = data_of(inputs)
    region = _region(start_indices, shape)
    return slice_of(inputs, a, a[region], region, "slice")


def slice_update(inputs, start_indices, updates):
    """``inputs`` with the block at ``start_indices`` replaced by ``updates``
    (differentiable in both)."""
    a, u = data_of(inputs), data_of(updates)
    region = _region(start_indices, u.shape)
    out = a.copy()
    out[region] = u
    return record(out, (inputs, updates), _replaced_backward(region), "slice_update")


def _replaced_backward(index):
    """The backward of writing updates over ``inputs[index]``: the inputs' gradient is
    zero there, the updates' is the upstream gradient there."""

    def backward(g, needs):
        grad_inputs = None
        if needs[0]:
            grad_inputs = g.copy()
            grad_inputs[index] = 0
        return grad_inputs, (g[index] if needs[1] else None)

    return backward


def _coordinates(indices):
    """Integer ``indices`` of shape (..., k) as a tuple of k index arrays."""
    idx = index_data(indices).astype("int64")
    if idx.ndim == 1:
        idx = idx[None, :]
    return tuple(idx[..., j] for j in range(idx.shape[-1]))


def scatter(indices, values, shape):
    """A zeros tensor of ``shape`` with ``values`` added at ``indices`` ((..., k)
    coordinates into the first k axes); duplicates add up. Differentiable in ``values``."""
    v = data_of(values)
    coordinates = _coordinates(indices)
    out = xp().zeros(tuple(shape), dtype=getattr(v, "dtype", state.floatx()))
    xp().add.at(out, coordinates, v)
    return record(out, (values,), lambda g, needs: (g[coordinates],), "scatter")


def scatter_update(inputs, indices, updates, reduction=None):
    """``inputs`` with ``updates`` written at ``indices`` ((n, k) coordinates).

    ``reduction`` None replaces (differentiable in both), ``"add"`` adds (differentiable
    in both), ``"max"``/``"min"``/``"mul"`` combine (no gradient)."""
    a, u = data_of(inputs), data_of(updates)
    coordinates = _coordinates(indices)
    out = a.copy()
    if reduction is None:
        out[coordinates] = u
        backward = _replaced_backward(coordinates)
    elif reduction == "add":
        xp().add.at(out, coordinates, u)

        def backward(g, needs):
            return g, (g[coordinates] if needs[1] else None)
    elif reduction in ("max", "min", "mul"):
        ufunc = {"max": xp().maximum, "min": xp().minimum, "mul": xp().multiply}[reduction]
        ufunc.at(out, coordinates, u)
        backward = without_gradient(f"scatter_update(reduction={reduction!r})")
    else:
        raise ValueError(f"scatter_update: reduction must be None, 'add', 'max', 'min' or "
                         f"'mul', got {reduction!r}")
    return record(out, (inputs, updates), backward, "scatter_update")


# ------------------------------------------------------------------ diagonals
def diagonal(x, offset=0, axis1=0, axis2=1):
    """The ``offset`` diagonal of the planes spanned by ``axis1`` and ``axis2``, as the
    last axis of the result."""
    a = data_of(x)
    out = xp().diagonal(a, offset, axis1, axis2).copy()

    def backward(g, needs):
        full = xp().zeros(a.shape, dtype=g.dtype)
        planes = xp().moveaxis(full, (axis1, axis2), (-2, -1))     # a view of ``full``
        steps = xp().arange(g.shape[-1])
        planes[..., steps + max(-offset, 0), steps + max(offset, 0)] = g
        return (full,)

    return record(out, (x,), backward, "diagonal")


def trace(x, offset=0, axis1=0, axis2=1):
    """The sum of the ``offset`` diagonal of the planes of ``axis1`` and ``axis2``."""
    return reduce_sum(diagonal(x, offset, axis1, axis2), axis=-1)


# ------------------------------------------------------------------ encodings
def one_hot(x, num_classes, axis=-1, dtype=None, sparse=False):
    """One-hot encoding of integer ``x`` along a new ``axis`` (default last); negative
    labels encode as all zeros, as in Keras. No gradient."""
    if sparse:
        raise ValueError("one_hot: lamina has dense tensors only, got sparse=True")
    labels = index_data(x).astype("int64")
    flat = labels.reshape(-1)
    out = xp().zeros((flat.shape[0], int(num_classes)), dtype=dtype or state.floatx())
    valid = flat >= 0
    out[xp().arange(flat.shape[0])[valid], flat[valid]] = 1
    out = out.reshape(tuple(labels.shape) + (int(num_classes),))
    if axis != -1:
        out = xp().moveaxis(out, -1, axis)
    return constant(out, "one_hot")


def multi_hot(inputs, num_classes=None, axis=-1, dtype=None, sparse=False, **kwargs):
    """Multi-hot encoding: 1 for every class that occurs in a sample's integer ``inputs``
    (a batch (batch, k) or one sample (k,)). ``num_tokens`` is accepted as Keras' legacy
    name of ``num_classes``. No gradient."""
    if "num_tokens" in kwargs:
        num_classes = kwargs.pop("num_tokens")
    if kwargs:
        raise TypeError(f"multi_hot: unexpected arguments {sorted(kwargs)}")
    if num_classes is None:
        raise ValueError("multi_hot: num_classes is required")
    encoded = one_hot(inputs, num_classes, axis=axis, dtype=dtype, sparse=sparse).data
    reduced = 1 if index_data(inputs).ndim > 1 else 0
    return constant(encoded.max(axis=reduced), "multi_hot")


def unravel_index(indices, shape):
    """Flat ``indices`` as a tuple of int32 coordinate tensors into ``shape``."""
    return tuple(constant(c.astype("int32"), "unravel_index") for c in
                 xp().unravel_index(index_data(indices), tuple(int(s) for s in shape)))


# ------------------------------------------------------------------ segment reductions
def _segments(data, segment_ids, num_segments):
    d = data_of(data)
    ids = index_data(segment_ids).astype("int64")
    if num_segments is None:
        num_segments = int(ids.max()) + 1 if ids.size else 0
    keep = ids >= 0
    return d, ids, keep, (int(num_segments),) + tuple(d.shape[1:])


def segment_sum(data, segment_ids, num_segments=None, sorted=False):  # noqa: A002
    """Sums of the rows of ``data`` per segment id (negative ids are dropped)."""
    d, ids, keep, shape = _segments(data, segment_ids, num_segments)
    out = xp().zeros(shape, dtype=d.dtype)
    xp().add.at(out, ids[keep], d[keep])

    def backward(g, needs):
        grad = xp().zeros(d.shape, dtype=g.dtype)
        grad[keep] = g[ids[keep]]
        return (grad,)

    return record(out, (data,), backward, "segment_sum")


def _segment_extremum(name, ufunc_name, fill):
    def op(data, segment_ids, num_segments=None, sorted=False):  # noqa: A002
        d, ids, keep, shape = _segments(data, segment_ids, num_segments)
        out = xp().full(shape, fill, dtype=d.dtype)
        getattr(xp(), ufunc_name).at(out, ids[keep], d[keep])

        def backward(g, needs):
            hits = xp().zeros(d.shape, dtype=g.dtype)
            hits[keep] = d[keep] == out[ids[keep]]
            counts = xp().zeros(shape, dtype=g.dtype)
            xp().add.at(counts, ids[keep], hits[keep])
            grad = xp().zeros(d.shape, dtype=g.dtype)
            grad[keep] = hits[keep] * g[ids[keep]] / counts[ids[keep]]
            return (grad,)

        return record(out, (data,), backward, name)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"The {ufunc_name} of the rows of ``data`` per segment id (empty segments "
                  f"hold {fill}; tied rows share the gradient).")
    return op


segment_max = _segment_extremum("segment_max", "maximum", -np.inf)
segment_min = _segment_extremum("segment_min", "minimum", np.inf)


def segment_prod(data, segment_ids, num_segments=None, sorted=False):  # noqa: A002
    """Products of the rows of ``data`` per segment id. No gradient in lamina."""
    d, ids, keep, shape = _segments(data, segment_ids, num_segments)
    out = xp().ones(shape, dtype=d.dtype)
    xp().multiply.at(out, ids[keep], d[keep])
    return record(out, (data,), without_gradient("segment_prod"), "segment_prod")


"""Shape ops: reshape, transpose, joins, splits, indexing and padding, each with its backward."""

import numpy as np

from .. import state
from ..autodiff import Tensor
from .core import data_of, index_data, record, xp


def reshape(x, newshape):
    """Same values in a new shape (one dimension may be -1)."""
    a = data_of(x)
    return record(a.reshape(newshape), (x,), lambda g, needs: (g.reshape(a.shape),), "reshape")


def transpose(x, axes=None):
    """Permute axes (default: reverse them)."""
    a = data_of(x)
    axes = tuple(range(a.ndim))[::-1] if axes is None else tuple(axes)
    inverse = tuple(np.argsort(axes))
    return record(a.transpose(axes), (x,), lambda g, needs: (g.transpose(inverse),), "transpose")


def expand_dims(x, axis):
    """Insert a length-1 axis at ``axis``."""
    a = data_of(x)
    return record(xp().expand_dims(a, axis), (x,),
                  lambda g, needs: (g.reshape(a.shape),), "expand_dims")


def squeeze(x, axis=None):
    """Remove length-1 axes (all of them, or ``axis``)."""
    a = data_of(x)
    return record(xp().squeeze(a, axis=axis), (x,),
                  lambda g, needs: (g.reshape(a.shape),), "squeeze")


def concatenate(xs, axis=0):
    """Join a sequence of tensors along an existing ``axis``."""
    arrays = [data_of(item) for item in xs]
    axis = axis % arrays[0].ndim
    bounds = np.cumsum([0] + [arr.shape[axis] for arr in arrays])

    def backward(g, needs):
        index = [slice(None)] * g.ndim
        grads = []
        for start, stop, need in zip(bounds[:-1], bounds[1:], needs):
            index[axis] = slice(int(start), int(stop))
            grads.append(g[tuple(index)] if need else None)
        return grads

    return record(xp().concatenate(arrays, axis=axis), tuple(xs), backward, "concatenate")


def stack(xs, axis=0):
    """Join a sequence of same-shape tensors along a new ``axis``."""
    arrays = [data_of(item) for item in xs]

    def backward(g, needs):
        return [xp().take(g, i, axis=axis) if need else None for i, need in enumerate(needs)]

    return record(xp().stack(arrays, axis=axis), tuple(xs), backward, "stack")


def split(x, indices_or_sections, axis=0):
    """Split into a list of tensors (``indices_or_sections`` as in ``numpy.split``)."""
    a = data_of(x)
    axis = axis % a.ndim
    pieces = xp().split(a, indices_or_sections, axis=axis)
    results = []
    start = 0
    for piece in pieces:
        stop = start + piece.shape[axis]
        index = (slice(None),) * axis + (slice(start, stop),)
        results.append(_slice_of(x, a, piece, index, "split"))
        start = stop
    return results


def _slice_of(x, a, piece, index, name):
    def backward(g, needs):
        full = xp().zeros(a.shape, dtype=g.dtype)
        full[index] = g
        return (full,)

    return record(piece, (x,), backward, name)


def _is_basic_index(index):
    items = index if isinstance(index, tuple) else (index,)
    return all(item is None or item is Ellipsis or isinstance(item, (int, np.integer, slice))
               for item in items)


def getitem(x, index):
    """``x[index]`` for basic and advanced (integer/boolean array) indexing."""
    a = data_of(x)
    if isinstance(index, Tensor):
        index = index.data
    elif isinstance(index, tuple):
        index = tuple(item.data if isinstance(item, Tensor) else item for item in index)
    if _is_basic_index(index):
        return _slice_of(x, a, a[index], index, "getitem")

    def backward(g, needs):
        full = xp().zeros(a.shape, dtype=g.dtype)
        xp().add.at(full, index, g)
        return (full,)

    return record(a[index], (x,), backward, "getitem")


def take(x, indices, axis=None):
    """Elements of ``x`` at integer ``indices`` along ``axis`` (None: of the flattened x)."""
    a = data_of(x)
    idx = index_data(indices)
    if axis is None:
        flat = reshape(x, (-1,))
        return take(flat, indices, axis=0)
    axis = axis % a.ndim
    if axis != 0:
        moved = transpose(x, [axis] + [i for i in range(a.ndim) if i != axis])
        taken = take(moved, indices, axis=0)
        k = idx.ndim
        order = list(range(k, k + axis)) + list(range(k)) + list(range(k + axis, taken.ndim))
        return transpose(taken, order)
    backend = state.backend()

    def backward(g, needs):
        return (backend.scatter_add(a.shape, idx, g), None)

    return record(backend.gather(a, idx), (x, indices), backward, "take")


def pad(x, pad_width, mode="constant", constant_values=0):
    """Pad with ``pad_width`` as in ``numpy.pad`` (constant mode is differentiable)."""
    a = data_of(x)
    widths = np.broadcast_to(np.asarray(pad_width, dtype=int), (a.ndim, 2))
    out = xp().pad(a, [tuple(w) for w in widths], mode=mode,
                   **({"constant_values": constant_values} if mode == "constant" else {}))
    index = tuple(slice(int(lo), int(lo) + size) for (lo, _), size in zip(widths, a.shape))
    if mode != "constant":
        return record(out, (), None, "pad")
    return record(out, (x,), lambda g, needs: (g[index],), "pad")


def one_hot(x, num_classes, dtype=None):
    """One-hot encoding of integer ``x`` along a new last axis (no gradient)."""
    labels = index_data(x)
    dtype = dtype or state.floatx()
    out = xp().zeros(labels.shape + (num_classes,), dtype=dtype)
    xp().put_along_axis(out, labels[..., None].astype("int64"), 1, axis=-1)
    return record(out, (), None, "one_hot")


def shape(x):
    """The static shape as a tuple of ints."""
    return tuple(data_of(x).shape)

"""Shape ops: reshape, transpose and axis moves, broadcasting, flips and rolls, tiling and
repeating, joins, splits, basic indexing and padding, each with its backward (the gather
and scatter ops are in :mod:`.indexing`)."""

import numpy as np

from .. import state
from ..autodiff import Tensor
from ..dtypes import promote_all
from .core import data_of, index_data, record, unbroadcast, xp


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
    arrays = promote_all([data_of(item) for item in xs])
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


def stack(x, axis=0):
    """Join a sequence of same-shape tensors along a new ``axis``."""
    arrays = promote_all([data_of(item) for item in x])

    def backward(g, needs):
        return [xp().take(g, i, axis=axis) if need else None for i, need in enumerate(needs)]

    return record(xp().stack(arrays, axis=axis), tuple(x), backward, "stack")


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
        results.append(slice_of(x, a, piece, index, "split"))
        start = stop
    return results


def slice_of(x, a, piece, index, name):
    """Record ``piece = a[index]`` of ``x`` (data ``a``) as op ``name``: the gradient is
    scattered back into zeros of ``a``'s shape."""
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
        return slice_of(x, a, a[index], index, "getitem")

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


def pad(x, pad_width, mode="constant", constant_values=None):
    """Pad with ``pad_width`` as in ``numpy.pad`` (constant mode, with
    ``constant_values`` or 0, is differentiable)."""
    a = data_of(x)
    constant_values = 0 if constant_values is None else constant_values
    widths = np.broadcast_to(np.asarray(pad_width, dtype=int), (a.ndim, 2))
    out = xp().pad(a, [tuple(w) for w in widths], mode=mode,
                   **({"constant_values": constant_values} if mode == "constant" else {}))
    index = tuple(slice(int(lo), int(lo) + size) for (lo, _), size in zip(widths, a.shape))
    if mode != "constant":
        return record(out, (), None, "pad")
    return record(out, (x,), lambda g, needs: (g[index],), "pad")


def shape(x):
    """The static shape as a tuple of ints."""
    return tuple(data_of(x).shape)


# ------------------------------------------------------------------ axes
def moveaxis(x, source, destination):
    """Move axes ``source`` to positions ``destination`` (ints or sequences)."""
    ndim = data_of(x).ndim
    sources = [int(source)] if isinstance(source, (int, np.integer)) else list(source)
    targets = [int(destination)] if isinstance(destination, (int, np.integer)) \
        else list(destination)
    if len(sources) != len(targets):
        raise ValueError(f"moveaxis: source {source!r} and destination {destination!r} "
                         f"must have the same number of axes")
    sources, targets = [a % ndim for a in sources], [a % ndim for a in targets]
    order = [axis for axis in range(ndim) if axis not in sources]
    for target, axis in sorted(zip(targets, sources)):
        order.insert(target, axis)
    return transpose(x, order)


def swapaxes(x, axis1, axis2):
    """Exchange two axes."""
    order = list(range(data_of(x).ndim))
    order[axis1], order[axis2] = order[axis2], order[axis1]
    return transpose(x, order)


def ravel(x):
    """The elements as a 1-d tensor."""
    return reshape(x, (-1,))


def broadcast_to(x, shape):
    """``x`` broadcast to ``shape`` (the gradient sums back to the input's shape)."""
    a = data_of(x)
    a_shape = getattr(a, "shape", ())
    out = xp().broadcast_to(a, tuple(shape)).copy()
    return record(out, (x,), lambda g, needs: (unbroadcast(g, a_shape),), "broadcast_to")


# ------------------------------------------------------------------ flips and rolls
def flip(x, axis=None):
    """Reverse the order of elements along ``axis`` (None: every axis)."""
    a = data_of(x)
    return record(xp().flip(a, axis).copy(), (x,),
                  lambda g, needs: (xp().flip(g, axis),), "flip")


def fliplr(x):
    """Reverse along axis 1."""
    return flip(x, 1)


def flipud(x):
    """Reverse along axis 0."""
    return flip(x, 0)


def roll(x, shift, axis=None):
    """Shift elements cyclically by ``shift`` along ``axis`` (None: of the flattened x)."""
    a = data_of(x)
    back = tuple(-s for s in shift) if isinstance(shift, (tuple, list)) else -shift
    return record(xp().roll(a, shift, axis), (x,),
                  lambda g, needs: (xp().roll(g, back, axis),), "roll")


def rot90(array, k=1, axes=(0, 1)):
    """Rotate by 90 degrees ``k`` times in the plane of ``axes``."""
    a = data_of(array)
    return record(xp().rot90(a, k, axes).copy(), (array,),
                  lambda g, needs: (xp().rot90(g, -k, axes).copy(),), "rot90")


# ------------------------------------------------------------------ tiling and repeating
def tile(x, repeats):
    """Repeat the whole of ``x`` ``repeats`` times per axis (as ``numpy.tile``)."""
    a = data_of(x)
    reps = (int(repeats),) if isinstance(repeats, (int, np.integer)) else tuple(
        int(r) for r in repeats)
    ndim = max(len(reps), a.ndim)
    reps = (1,) * (ndim - len(reps)) + reps
    padded = (1,) * (ndim - a.ndim) + tuple(a.shape)

    def backward(g, needs):
        interleaved = [n for pair in zip(reps, padded) for n in pair]
        summed = g.reshape(interleaved).sum(axis=tuple(range(0, 2 * ndim, 2)))
        return (summed.reshape(a.shape),)

    return record(xp().tile(a, reps), (x,), backward, "tile")


def repeat(x, repeats, axis=None):
    """Repeat each element ``repeats`` times (an int or one count per element) along
    ``axis`` (None: of the flattened x)."""
    if axis is None:
        x, axis = ravel(x), 0
    a = data_of(x)
    counts = repeats.data if isinstance(repeats, Tensor) else repeats
    index = xp().repeat(xp().arange(a.shape[axis]), xp().asarray(counts) if not isinstance(
        counts, (int, np.integer)) else int(counts))
    return take(x, index, axis=axis)


# ------------------------------------------------------------------ joins and splits
def _at_least(x, ndim, where):
    a = data_of(x)
    if a.ndim >= ndim:
        return x
    shape = list(a.shape)
    for position in where[a.ndim]:
        shape.insert(position, 1)
    return reshape(x, shape)


def append(x1, x2, axis=None):
    """``x2`` appended to ``x1`` along ``axis`` (None: both flattened)."""
    if axis is None:
        return concatenate([ravel(x1), ravel(x2)], axis=0)
    return concatenate([x1, x2], axis=axis)


def hstack(xs):
    """Join horizontally: along axis 1 (axis 0 for 1-d tensors)."""
    axis = 0 if data_of(xs[0]).ndim == 1 else 1
    return concatenate([_at_least(x, 1, {0: (0,)}) for x in xs], axis=axis)


def vstack(xs):
    """Join vertically: along axis 0, 1-d tensors as rows."""
    return concatenate([_at_least(x, 2, {0: (0, 0), 1: (0,)}) for x in xs], axis=0)


def dstack(xs):
    """Join along the third axis (1-d ``(n,)`` as ``(1, n, 1)``, 2-d as ``(m, n, 1)``)."""
    return concatenate([_at_least(x, 3, {0: (0, 0, 0), 1: (0, 2), 2: (2,)}) for x in xs],
                       axis=2)


def array_split(x, indices_or_sections, axis=0):
    """``split`` that allows sections of unequal size (the first ones one longer)."""
    if isinstance(indices_or_sections, (int, np.integer)):
        length, sections = data_of(x).shape[axis], int(indices_or_sections)
        if sections <= 0:
            raise ValueError(f"array_split: the number of sections must be > 0, got {sections}")
        sizes = [length // sections + (1 if i < length % sections else 0)
                 for i in range(sections)]
        indices_or_sections = [int(v) for v in np.cumsum(sizes)[:-1]]
    return split(x, indices_or_sections, axis=axis)


def hsplit(x, indices_or_sections):
    """Split along axis 1 (axis 0 for 1-d tensors)."""
    return split(x, indices_or_sections, axis=0 if data_of(x).ndim == 1 else 1)


def vsplit(x, indices_or_sections):
    """Split along axis 0."""
    return split(x, indices_or_sections, axis=0)


def dsplit(x, indices_or_sections):
    """Split along axis 2."""
    return split(x, indices_or_sections, axis=2)


def unstack(x, num=None, axis=0):
    """The slices of ``x`` along ``axis``, as a list (``num``, if given, must match)."""
    a = data_of(x)
    axis = axis % a.ndim
    if num is not None and num != a.shape[axis]:
        raise ValueError(f"unstack: num={num} but axis {axis} has length {a.shape[axis]}")
    return [getitem(x, (slice(None),) * axis + (i,)) for i in range(a.shape[axis])]

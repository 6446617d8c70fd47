"""Sorting, ranking and counting: ``sort``, ``argsort``, ``top_k``, ``in_top_k``,
``argpartition``, ``searchsorted``, ``digitize``, ``bincount``, ``unique`` and ``histogram``.

Sorted and top-k *values* are differentiable (the gradient goes back to the positions
they came from, through :func:`~.indexing.take_along_axis`); indices and counts are int32,
as in Keras, and carry no gradient.
"""

import numpy as np

from .. import state
from .core import constant, data_of, float_data, index_data, record, xp
from .indexing import take_along_axis
from .shape import ravel


def argsort(x, axis=-1):
    """Indices (int32) that sort ``x`` along ``axis`` (None: the flattened ``x``); ties
    keep their order."""
    a = data_of(x)
    if axis is None:
        a, axis = a.reshape(-1), 0
    return constant(xp().argsort(a, axis=axis, kind="stable").astype("int32"), "argsort")


def sort(x, axis=-1):
    """``x`` sorted ascending along ``axis`` (None: flattened); differentiable."""
    if axis is None:
        x, axis = ravel(x), 0
    return take_along_axis(x, argsort(x, axis), axis=axis)


def top_k(x, k, sorted=True):  # noqa: A002  (Keras' name)
    """The ``k`` largest values along the last axis and their int32 indices, as
    ``(values, indices)``; ties go to the lower index. ``sorted=False`` still returns
    them in descending order. The values are differentiable."""
    a = data_of(x)
    if not 0 <= int(k) <= a.shape[-1]:
        raise ValueError(f"top_k: k must be in [0, {a.shape[-1]}] for a last axis of "
                         f"length {a.shape[-1]}, got {k}")
    order = xp().argsort(-a, axis=-1, kind="stable")[..., :int(k)].astype("int32")
    indices = constant(order, "top_k")
    return take_along_axis(x, indices, axis=-1), indices


def in_top_k(targets, predictions, k):
    """Whether each sample's target class is among the ``k`` highest ``predictions``
    (classes tied with the k-th count as inside, as in Keras/TensorFlow)."""
    labels = index_data(targets).astype("int64").reshape(-1)
    scores = data_of(predictions)
    target_scores = xp().take_along_axis(scores, labels[:, None], axis=-1)
    higher = (scores > target_scores).sum(axis=-1)
    return constant(higher < int(k), "in_top_k")


def argpartition(x, kth, axis=-1):
    """Indices (int32) that partition ``x`` around its ``kth`` element along ``axis``."""
    return constant(xp().argpartition(data_of(x), kth, axis=axis).astype("int32"),
                    "argpartition")


def searchsorted(sorted_sequence, values, side="left"):
    """Indices (int32) where ``values`` would be inserted into the 1-d
    ``sorted_sequence`` to keep it sorted."""
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    sequence = data_of(sorted_sequence)
    if sequence.ndim != 1:
        raise ValueError(f"searchsorted: sorted_sequence must be 1-d, got shape "
                         f"{tuple(sequence.shape)}")
    found = xp().searchsorted(sequence, data_of(values), side=side)
    return constant(xp().asarray(found).astype("int32"), "searchsorted")


def digitize(x, bins):
    """The index (int32) of the bin of ``bins`` (increasing) each element falls in."""
    edges = xp().asarray(data_of(bins))
    return constant(xp().digitize(data_of(x), edges).astype("int32"), "digitize")


def bincount(x, weights=None, minlength=0, sparse=False):
    """Occurrences of each non-negative integer in ``x`` (1-d, or 2-d: one count per row),
    weighted by ``weights`` when given (differentiable in them). Counts are int32."""
    if sparse:
        raise ValueError("bincount: lamina has dense tensors only, got sparse=True")
    values = index_data(x).astype("int64")
    if values.ndim not in (1, 2):
        raise ValueError(f"bincount: x must be 1-d or 2-d, got shape {tuple(values.shape)}")
    length = max(int(values.max()) + 1 if values.size else 0, int(minlength))
    rows = 1 if values.ndim == 1 else values.shape[0]
    flat = (values + (xp().arange(rows)[:, None] * length if values.ndim == 2 else 0)
            ).reshape(-1)
    shape = (length,) if values.ndim == 1 else (rows, length)
    if weights is None:
        counts = xp().bincount(flat, minlength=rows * length).astype("int32")
        return constant(counts.reshape(shape), "bincount")
    w = data_of(weights)
    out = xp().bincount(flat, weights=w.reshape(-1), minlength=rows * length)
    out = out.astype(w.dtype, copy=False).reshape(shape)

    def backward(g, needs):
        return (None, g.reshape(-1)[flat].reshape(values.shape))

    return record(out, (x, weights), backward, "bincount")


def unique(x, sorted=True, return_index=False, return_inverse=False,  # noqa: A002
           return_counts=False, axis=None, size=None, fill_value=None):
    """The distinct values of ``x`` (sorted; ``sorted=False``: in order of first
    occurrence), optionally with first indices, the inverse map and counts (int32).
    ``size`` pads (with ``fill_value``, default 0) or truncates the unique values to a
    fixed length. No gradient."""
    a = data_of(x)
    values, first, inverse, counts = xp().unique(a, return_index=True, return_inverse=True,
                                                 return_counts=True, axis=axis)
    inverse = inverse.reshape(-1) if axis is None else inverse
    if not sorted:
        order = xp().argsort(first, kind="stable")
        rank = xp().empty_like(order)
        rank[order] = xp().arange(order.shape[0])
        values = xp().take(values, order, axis=0 if axis is None else axis)
        first, counts, inverse = first[order], counts[order], rank[inverse]
    if size is not None:
        values, first, counts = (_fixed_length(v, int(size), fill)
                                 for v, fill in ((values, fill_value), (first, 0),
                                                 (counts, 0)))
    if axis is None:
        inverse = inverse.reshape(a.shape)
    extras = [item.astype("int32") for item, wanted in
              ((first, return_index), (inverse, return_inverse), (counts, return_counts))
              if wanted]
    if not extras:
        return constant(values, "unique")
    return tuple(constant(item, "unique") for item in [values] + extras)


def _fixed_length(values, size, fill_value):
    if values.shape[0] >= size:
        return values[:size]
    pad = xp().full((size - values.shape[0],) + tuple(values.shape[1:]),
                    0 if fill_value is None else fill_value, dtype=values.dtype)
    return xp().concatenate([values, pad])


def histogram(x, bins=10, range=None):  # noqa: A002
    """Counts (int32) of ``x`` in ``bins`` equal-width bins over ``range`` (default: the
    data's min and max), and the ``bins + 1`` edges, as ``numpy.histogram``."""
    a = float_data(x)
    if not isinstance(bins, (int, np.integer)) or bins <= 0:
        raise ValueError(f"histogram: bins must be a positive int, got {bins!r}")
    counts, edges = xp().histogram(a.reshape(-1), bins=int(bins), range=range)
    return (constant(counts.astype("int32"), "histogram"),
            constant(edges.astype(a.dtype if a.dtype.kind == "f" else state.floatx()),
                     "histogram"))

"""Adaptive pooling ops (``keras.ops.adaptive_average_pool`` / ``adaptive_max_pool``): pool
each spatial axis into a fixed number of bins, whatever its length.

Bin ``i`` of an axis of length ``L`` pooled to ``n`` bins covers ``[floor(i*L/n),
ceil((i+1)*L/n))`` (PyTorch's rule, which Keras follows), so bins may overlap and, for
``n > L``, repeat cells. A bin over several axes is the product of per-axis bins, so both
ops pool one axis after the other: the average as a product with a constant (bins,
length) averaging matrix, the max as a gather of padded windows (a short bin repeats its
last cell) and a max over the window. The backward runs the same steps in reverse.
"""

import numpy as np

from .. import state
from .core import data_of, record, xp


def bin_edges(length, bins):
    """The start (inclusive) and end (exclusive) cell of each of ``bins`` adaptive bins
    over an axis of ``length`` cells, as two int arrays."""
    index = np.arange(bins)
    return (index * length) // bins, -((-(index + 1) * length) // bins)


def _spatial_axes_and_sizes(name, a, output_size, data_format):
    """The spatial axes of ``a`` and the bins per axis, checked."""
    if a.ndim not in (3, 4, 5):
        raise ValueError(f"ops.{name}: inputs must have ndim=3, 4 or 5 (batch, spatial "
                         f"axes, channels), got input shape {tuple(a.shape)}")
    rank = a.ndim - 2
    sizes = (output_size,) * rank if isinstance(output_size, (int, np.integer)) \
        else tuple(output_size)
    if len(sizes) != rank or not all(isinstance(s, (int, np.integer)) and not
                                     isinstance(s, bool) and s > 0 for s in sizes):
        raise ValueError(f"ops.{name}: output_size must be a positive int or a tuple of "
                         f"{rank} positive ints, got {output_size!r}")
    if data_format is None:      # Keras: lamina.config.image_data_format()
        data_format = state.image_data_format()
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"ops.{name}: data_format must be 'channels_last' or "
                         f"'channels_first', got {data_format!r}")
    first = 2 if data_format == "channels_first" else 1
    return range(first, first + rank), tuple(int(s) for s in sizes)


def _along(a, matrix, axis):
    """``matrix`` (n, length) applied to ``axis`` of ``a`` (length -> n)."""
    return xp().moveaxis(xp().tensordot(a, matrix, axes=([axis], [1])), -1, axis)


def _average_matrix(length, bins, dtype):
    start, end = bin_edges(length, bins)
    cells = np.arange(length)
    inside = (cells >= start[:, None]) & (cells < end[:, None])
    return state.backend().asarray((inside / (end - start)[:, None]).astype(dtype))


def adaptive_average_pool(inputs, output_size, data_format=None):
    """Adaptive average pooling over the 1-3 spatial axes (``keras.ops.adaptive_average_pool``).

    Args:
        inputs: (batch, *spatial, channels), or (batch, channels, *spatial) with
            ``data_format="channels_first"``.
        output_size: bins per spatial axis, an int (every axis) or a tuple.
        data_format: ``"channels_last"`` or ``"channels_first"`` (``None``:
            ``lamina.config.image_data_format()``, as Keras).

    Returns the mean of every bin: (batch, *output_size, channels) in the input's layout.
    Integer inputs give ``floatx()``.

    Example:
        >>> ops.adaptive_average_pool(np.ones((2, 64, 64, 3)), 7).shape
        (2, 7, 7, 3)
    """
    a = data_of(inputs)
    axes, sizes = _spatial_axes_and_sizes("adaptive_average_pool", a, output_size,
                                          data_format)
    if a.dtype.kind != "f":
        a = a.astype(state.floatx())
    matrices = [_average_matrix(a.shape[axis], size, a.dtype)
                for axis, size in zip(axes, sizes)]
    out = a
    for axis, matrix in zip(axes, matrices):
        out = _along(out, matrix, axis)

    def backward(g, needs):
        for axis, matrix in reversed(list(zip(axes, matrices))):
            g = _along(g, matrix.T, axis)
        return (g,)

    return record(out, (inputs,), backward, "adaptive_average_pool")


def _max_along(a, axis, bins):
    """Max over ``bins`` adaptive bins of ``axis``: the pooled array and what the backward
    needs (the first maximum of each padded window, the cell-from-window matrix)."""
    length = a.shape[axis]
    start, end = bin_edges(length, bins)
    width = int((end - start).max())
    cells = np.minimum(start[:, None] + np.arange(width), end[:, None] - 1)   # (bins, width)
    windows = xp().take(a, state.backend().asarray(cells.ravel()), axis=axis)
    windows = windows.reshape(a.shape[:axis] + (bins, width) + a.shape[axis + 1:])
    pooled = windows.max(axis=axis + 1)
    hits = windows == xp().expand_dims(pooled, axis + 1)
    first = hits & (xp().cumsum(hits, axis=axis + 1) == 1)
    gather = np.zeros((length, bins * width))
    gather[cells.ravel(), np.arange(bins * width)] = 1.0
    return pooled, (first, state.backend().asarray(gather))


def adaptive_max_pool(inputs, output_size, data_format=None):
    """Adaptive max pooling over the 1-3 spatial axes (``keras.ops.adaptive_max_pool``).

    Args and layout as :func:`adaptive_average_pool`. Returns the maximum of every bin;
    the gradient goes to the first maximal cell of each bin.

    Example:
        >>> ops.adaptive_max_pool(np.ones((2, 100, 80, 3)), (7, 5)).shape
        (2, 7, 5, 3)
    """
    a = data_of(inputs)
    axes, sizes = _spatial_axes_and_sizes("adaptive_max_pool", a, output_size, data_format)
    out, steps = a, []
    for axis, size in zip(axes, sizes):
        out, context = _max_along(out, axis, size)
        steps.append((axis, context))

    def backward(g, needs):
        for axis, (first, gather) in reversed(steps):
            spread = xp().expand_dims(g, axis + 1) * first
            flat = spread.reshape(spread.shape[:axis] + (-1,) + spread.shape[axis + 2:])
            g = _along(flat, gather.astype(g.dtype), axis)
        return (g,)

    return record(out, (inputs,), backward, "adaptive_max_pool")

"""The NumPy engine's compiled 2-D max pooling: each of forward and backward is ONE pass.

Max pooling through strided views (:mod:`lamina.backends.pool_kernels`) takes about three
NumPy passes per window offset: a comparison, a maximum and the update of the offset of the
first maximum. Numba compiles the whole pooling into one loop over the windows whose inner
loop runs along the channels (contiguous, vectorized). The kernels release the GIL, so the
engine's row blocks run them side by side on threads.

Results and the recorded offsets are exactly those of the strided-view kernels (for inputs
without NaN; here a NaN wins a window only as its first cell): the offset
is the row-major position inside the window of the first maximum (as TensorFlow's
``MaxPoolGrad``), and padded cells never take part. The NumPy engine imports this module on
first use through :func:`lamina.backends.numpy_backend.compiled`, which answers None when
Numba is missing or ``LAMINA_JIT=0`` is set; pooling then runs as NumPy calls.
"""

import numba
import numpy as np

_KERNEL_OPTIONS = dict(fastmath=False, error_model="numpy", boundscheck=False, nogil=True,
                       cache=True)


def max_pool_2d_forward(x, pool_size, strides, pads_before, out, index):
    """x (batch, height, width, channels) -> the maximum of each window into ``out``
    (batch, out_height, out_width, channels) and its offset into ``index`` (same shape)."""
    _pass(x, out, index, pool_size, strides, pads_before, _maximum_pass)


def max_pool_2d_backward(grad_output, index, pool_size, strides, pads_before, tiled, dx):
    """Route each output cell's gradient to its window's recorded maximum, into ``dx``
    (the input's shape). ``tiled``: the windows cover every input cell exactly once, so
    each cell is assigned once; otherwise ``dx`` must hold zeros and the shares add up."""
    _pass(dx, grad_output, index, pool_size, strides, pads_before, _assign_pass if tiled else _add_pass)


def _pass(cells, windows, index, pool_size, strides, pads_before, kernel):
    def bounds(axis):
        """(count, 3) rows ``[start, first, stop)`` per window along a spatial axis: where
        it starts (maybe in the padding) and the real cells it covers."""
        start = np.arange(windows.shape[axis], dtype=np.int64) * strides[axis - 1] \
            - pads_before[axis - 1]
        stop = np.minimum(start + pool_size[axis - 1], cells.shape[axis])
        return np.stack([start, np.maximum(start, 0), stop], axis=1)

    kernel(cells, windows, index, bounds(1), bounds(2), pool_size[1])


def _window_pass(visit):
    """A compiled pass over every window and its real cells that calls
    ``visit(cell, window, where, tap, first)`` on each (cell, window) pair of channel rows;
    ``tap`` is the cell's row-major offset in the window, ``first`` whether it is the
    window's first real cell."""
    @numba.njit(**_KERNEL_OPTIONS)
    def window_pass(cells, windows, index, rows, cols, pool_w):
        for b in range(windows.shape[0]):
            for oy in range(windows.shape[1]):
                for ox in range(windows.shape[2]):
                    top, y_lo, y_hi = rows[oy, 0], rows[oy, 1], rows[oy, 2]
                    left, x_lo, x_hi = cols[ox, 0], cols[ox, 1], cols[ox, 2]
                    window, where = windows[b, oy, ox], index[b, oy, ox]
                    for y in range(y_lo, y_hi):
                        for col in range(x_lo, x_hi):
                            visit(cells[b, y, col], window, where,
                                  (y - top) * pool_w + col - left, y == y_lo and col == x_lo)

    return window_pass


@numba.njit(inline="always")
def _take_maximum(cell, window, where, tap, first):
    if first:
        for c in range(cell.shape[0]):
            window[c] = cell[c]
            where[c] = tap
    else:
        for c in range(cell.shape[0]):
            if cell[c] > window[c]:
                window[c] = cell[c]
                where[c] = tap


@numba.njit(inline="always")
def _assign_gradient(cell, window, where, tap, first):
    zero = cell.dtype.type(0)
    for c in range(cell.shape[0]):
        cell[c] = window[c] if where[c] == tap else zero


@numba.njit(inline="always")
def _add_gradient(cell, window, where, tap, first):
    for c in range(cell.shape[0]):
        if where[c] == tap:
            cell[c] += window[c]


_maximum_pass = _window_pass(_take_maximum)
_assign_pass = _window_pass(_assign_gradient)
_add_pass = _window_pass(_add_gradient)

"""The NumPy engine's compiled 2-D max pooling: each of forward and backward is ONE pass.

Max pooling through strided views (:mod:`lamina.backends.pool`) takes about three
NumPy passes per window offset: a comparison, a maximum and the update of the offset of the
first maximum. Numba compiles the whole pooling into one loop over the windows whose inner
loop runs along the channels (contiguous, vectorized). The kernels release the GIL, so the
engine's row blocks run them side by side on threads.

Results and the recorded offsets are exactly those of the strided-view kernels (NaN
included: a NaN wins its window, as with ``np.maximum``): the offset
is the row-major position inside the window of the first maximum (as TensorFlow's
``MaxPoolGrad``), and padded cells never take part. The NumPy engine imports this module on
first use through :func:`lamina.backends.numpy.engine.compiled`, which answers None when
Numba is missing or ``LAMINA_JIT=0`` is set; pooling then runs as NumPy calls.
"""

import numba
import numpy as np

_KERNEL_OPTIONS = dict(fastmath=False, error_model="numpy", boundscheck=False, nogil=True,
                       cache=True)


def max_pool_2d_forward(x, pool_size, strides, pads_before, out, index):
    """x (batch, height, width, channels) -> the maximum of each window into ``out``
    (batch, out_height, out_width, channels) and its offset into ``index`` (same shape)."""
    _pass(x, out, index, pool_size, strides, pads_before, _MAXIMUM)


def max_pool_2d_backward(grad_output, index, pool_size, strides, pads_before, tiled, dx):
    """Route each output cell's gradient to its window's recorded maximum, into ``dx``
    (the input's shape). ``tiled``: the windows cover every input cell exactly once, so
    each cell is assigned once; otherwise ``dx`` must hold zeros and the shares add up."""
    _pass(dx, grad_output, index, pool_size, strides, pads_before, _ASSIGN if tiled else _ADD)


_MAXIMUM, _ASSIGN, _ADD = 0, 1, 2


def _pass(cells, windows, index, pool_size, strides, pads_before, mode):
    # One compiled pass serves both directions, so it is typed with writable arrays.
    cells, windows = (a if a.flags.writeable else a.copy() for a in (cells, windows))

    def bounds(axis):
        """(count, 3) rows ``[start, first, stop)`` per window along a spatial axis: where
        it starts (maybe in the padding) and the real cells it covers."""
        start = np.arange(windows.shape[axis], dtype=np.int64) * strides[axis - 1] \
            - pads_before[axis - 1]
        stop = np.minimum(start + pool_size[axis - 1], cells.shape[axis])
        return np.stack([start, np.maximum(start, 0), stop], axis=1)

    _window_pass(cells, windows, index, bounds(1), bounds(2), pool_size[1], mode)


@numba.njit(**_KERNEL_OPTIONS)
def _window_pass(cells, windows, index, rows, cols, pool_w, mode):
    """One pass over every window and its real cells. _MAXIMUM: ``windows`` gets each
    window's maximum of ``cells`` (a NaN wins, as with ``np.maximum``) and ``index`` the
    offset of its first maximum; _ASSIGN / _ADD: each cell gets (or adds) its window's
    value where the window's offset points at it, else (_ASSIGN) zero."""
    zero = cells.dtype.type(0)
    for b in range(windows.shape[0]):
        for oy in range(windows.shape[1]):
            for ox in range(windows.shape[2]):
                top, y_lo, y_hi = rows[oy, 0], rows[oy, 1], rows[oy, 2]
                left, x_lo, x_hi = cols[ox, 0], cols[ox, 1], cols[ox, 2]
                window, where = windows[b, oy, ox], index[b, oy, ox]
                for y in range(y_lo, y_hi):
                    for col in range(x_lo, x_hi):
                        cell, tap = cells[b, y, col], (y - top) * pool_w + col - left
                        if mode == _ASSIGN:
                            for c in range(cells.shape[3]):
                                cell[c] = window[c] if where[c] == tap else zero
                        elif mode == _ADD:
                            for c in range(cells.shape[3]):
                                if where[c] == tap:
                                    cell[c] += window[c]
                        elif y == y_lo and col == x_lo:
                            for c in range(cells.shape[3]):
                                window[c] = cell[c]
                                where[c] = tap
                        else:
                            for c in range(cells.shape[3]):
                                if cell[c] > window[c]:
                                    window[c] = cell[c]
                                    where[c] = tap
                                elif cell[c] != cell[c]:
                                    window[c] = cell[c]

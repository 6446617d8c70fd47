"""The NumPy engine's compiled time loops: a whole LSTM, GRU or simple-RNN sequence (one
block of batch rows), forward or backward, as ONE Numba call that runs every step's
recurrent GEMM through BLAS and the gate arithmetic of :mod:`.cells` in between.

A step at 64-128 units is a GEMM of a few tens of microseconds plus the gates; driven from
Python, each step also paid about as much again in interpreter work (slicing, small calls,
the mask and dropout passes). Here the loop never returns to Python: per call the only
Python work is the call itself, once per sequence and row block.

The GEMMs call the CBLAS ``?gemm`` of the BLAS library NumPy uses (:mod:`.blas`, passed
to the kernels as a ctypes function), so they run with the same
speed and the same thread settings as NumPy's own matmul: the engine's row blocks limit
that BLAS to one thread each (:mod:`lamina.backends.numpy.threads`). :func:`loop_kernels`
answers None when no CBLAS entry point is found; the ops then step in Python.

The arrays follow the ops' step-major layout (:mod:`lamina.ops.recurrent`): inputs and
histories are C-contiguous ``(time, batch, ...)`` arrays, and a kernel works on the batch
rows ``start:stop``, so row blocks run side by side on threads (the kernels release the
GIL). ``keep`` is the (time, batch) boolean mask or an empty (0, 0) array; ``dropout`` the
(batch, units) recurrent-dropout scale or an empty (0, 0) array. The contracts are
:meth:`lamina.backends.Backend.recurrent_loop_kernels`.
"""

import functools

import numba
import numpy as np

from .blas import NO_TRANSPOSE, ROW_MAJOR, TRANSPOSE, cblas_gemm
from .cells import (KERNEL_OPTIONS, INLINE_OPTIONS, gru_cell_backward, gru_cell_forward,
                    lstm_cell_backward, lstm_cell_forward, tanh)


# ------------------------------------------------------------------ BLAS
def loop_kernels(cell, dtype):
    """``(forward, backward)`` of ``cell`` (``"lstm"``, ``"gru"`` or ``"simple_rnn"``)
    with the GEMM of ``dtype`` bound, or None without a CBLAS entry point."""
    gemm = cblas_gemm(dtype)
    if gemm is None:
        return None
    forward, backward = _KERNELS[cell]
    return functools.partial(forward, gemm), functools.partial(backward, gemm)


@numba.njit(**INLINE_OPTIONS)
def _matmul(gemm, a, b, out, transpose_b):
    """``out = a @ b`` (``a @ b.T`` with ``transpose_b``); every array's rows contiguous
    and back to back in memory (C order, or a row range of a C-ordered array)."""
    m, k = a.shape
    n = out.shape[1]
    gemm(ROW_MAJOR, NO_TRANSPOSE, TRANSPOSE if transpose_b else NO_TRANSPOSE, m, n, k,
         1.0, a.ctypes.data, k, b.ctypes.data, b.shape[1], 0.0, out.ctypes.data, n)


# ------------------------------------------------------------------ masks and dropout
@numba.njit(**INLINE_OPTIONS)
def _feed(h, dropout, start, out):
    """``out`` = the rows ``start:`` of ``h`` as the recurrent GEMM sees them (scaled by
    the recurrent-dropout mask when there is one)."""
    for r in range(out.shape[0]):
        for j in range(out.shape[1]):
            out[r, j] = h[start + r, j] * dropout[start + r, j] if dropout.shape[0] \
                else h[start + r, j]


@numba.njit(**INLINE_OPTIONS)
def _carry(keep, t, start, stop, new, old):
    """Rows masked at step ``t`` carry their state: ``new[row] = old[row]``."""
    if keep.shape[0]:
        for row in range(start, stop):
            if not keep[t, row]:
                new[row] = old[row]


@numba.njit(**INLINE_OPTIONS)
def _accumulate(state, upstream, start):
    """``state += upstream[start:]`` (the gradient reaching a step's output)."""
    for r in range(state.shape[0]):
        for j in range(state.shape[1]):
            state[r, j] += upstream[start + r, j]


@numba.njit(**INLINE_OPTIONS)
def _through(keep, t, start, state, out):
    """``out`` = the gradient that reaches step ``t``'s cell: ``state``, zero in the rows
    masked at ``t`` (there the gradient passes the step unchanged)."""
    for r in range(state.shape[0]):
        kept = keep[t, start + r] if keep.shape[0] else True
        for j in range(state.shape[1]):
            out[r, j] = state[r, j] if kept else 0.0


@numba.njit(**INLINE_OPTIONS)
def _passed(keep, t, start, dropout, value, state):
    """``state`` = the gradient reaching the state before step ``t``: ``value`` (scaled by
    the dropout mask) in the rows step ``t`` kept; masked rows keep ``state``."""
    for r in range(state.shape[0]):
        if keep.shape[0] == 0 or keep[t, start + r]:
            for j in range(state.shape[1]):
                state[r, j] = value[r, j] * dropout[start + r, j] if dropout.shape[0] \
                    else value[r, j]


@numba.njit(**INLINE_OPTIONS)
def _add_column_sums(rows, total):
    """``total += rows.sum(axis=0)`` (a step's part of the bias gradient, summed while
    the rows are in cache), unless ``total`` is the empty stand-in."""
    if total.shape[0]:
        for r in range(rows.shape[0]):
            for j in range(rows.shape[1]):
                total[j] += rows[r, j]


# ------------------------------------------------------------------ LSTM
@numba.njit(**KERNEL_OPTIONS)
def lstm_loop_forward(gemm, gemm_input, bias, stacked_kernel, keep, dropout, start, stop,
                      gates, cell_activation, cs, hs):
    """The LSTM's time loop forward; see
    :meth:`lamina.backends.Backend.recurrent_loop_kernels`."""
    units = hs.shape[2]
    for t in range(gemm_input.shape[0]):
        step_input, z = gemm_input[t, start:stop], gates[t, start:stop]
        _feed(hs[t], dropout, start, step_input[:, :units])
        _matmul(gemm, step_input, stacked_kernel, z, False)
        lstm_cell_forward(z, bias, cs[t, start:stop], cs[t + 1, start:stop],
                          cell_activation[t, start:stop], hs[t + 1, start:stop])
        _carry(keep, t, start, stop, cs[t + 1], cs[t])
        _carry(keep, t, start, stop, hs[t + 1], hs[t])


@numba.njit(**KERNEL_OPTIONS)
def lstm_loop_backward(gemm, upstream, gates, cell_activation, cs, transposed_recurrent,
                       keep, dropout, start, stop, dh, dc, d_gates, bias_sum):
    """The LSTM's time loop backward; see
    :meth:`lamina.backends.Backend.recurrent_loop_kernels`."""
    state_h, state_c = dh[start:stop].copy(), dc[start:stop].copy()
    d_h, d_c = np.empty_like(state_h), np.empty_like(state_c)
    for t in range(gates.shape[0] - 1, -1, -1):
        _accumulate(state_h, upstream[t + 1], start)
        _through(keep, t, start, state_h, d_h)
        _through(keep, t, start, state_c, d_c)
        dz = d_gates[t, start:stop]
        lstm_cell_backward(d_h, d_c, gates[t, start:stop], cell_activation[t, start:stop],
                           cs[t, start:stop], dz)
        _add_column_sums(dz, bias_sum)
        _passed(keep, t, start, dropout[:0], d_c, state_c)      # c sees no dropout
        _matmul(gemm, dz, transposed_recurrent, d_h, False)
        _passed(keep, t, start, dropout, d_h, state_h)
    dh[start:stop] = state_h
    dc[start:stop] = state_c


# ------------------------------------------------------------------ GRU (reset_after)
@numba.njit(**KERNEL_OPTIONS)
def gru_loop_forward(gemm, projection, recurrent_bias, recurrent_kernel, keep, dropout,
                     start, stop, gates, memory, hs):
    """The GRU's time loop forward; see
    :meth:`lamina.backends.Backend.recurrent_loop_kernels`."""
    feed = np.empty((stop - start, hs.shape[2]), dtype=hs.dtype)
    recurrent = np.empty((stop - start, gates.shape[2]), dtype=hs.dtype)
    for t in range(projection.shape[0]):
        _feed(hs[t], dropout, start, feed)
        _matmul(gemm, feed, recurrent_kernel, recurrent, False)
        gru_cell_forward(projection[t, start:stop], recurrent, recurrent_bias, feed,
                         gates[t, start:stop], memory[t, start:stop], hs[t + 1, start:stop])
        _carry(keep, t, start, stop, hs[t + 1], hs[t])


@numba.njit(**KERNEL_OPTIONS)
def gru_loop_backward(gemm, upstream, hs, gates, memory, transposed_recurrent, keep,
                      dropout, start, stop, dh, d_input, d_recurrent, bias_sums):
    """The GRU's time loop backward; see
    :meth:`lamina.backends.Backend.recurrent_loop_kernels`."""
    state = dh[start:stop].copy()
    d_h, feed, direct = np.empty_like(state), np.empty_like(state), np.empty_like(state)
    previous = np.empty_like(state)
    for t in range(gates.shape[0] - 1, -1, -1):
        _accumulate(state, upstream[t + 1], start)
        _through(keep, t, start, state, d_h)
        _feed(hs[t], dropout, start, feed)
        d_in, d_rec = d_input[t, start:stop], d_recurrent[t, start:stop]
        gru_cell_backward(d_h, feed, gates[t, start:stop], memory[t, start:stop], d_in, d_rec,
                          direct)
        _add_column_sums(d_in, bias_sums[0])
        _add_column_sums(d_rec, bias_sums[1])
        _matmul(gemm, d_rec, transposed_recurrent, previous, False)
        previous += direct
        _passed(keep, t, start, dropout, previous, state)
    dh[start:stop] = state


# ------------------------------------------------------------------ simple RNN (tanh)
@numba.njit(**KERNEL_OPTIONS)
def simple_loop_forward(gemm, projection, recurrent_kernel, keep, dropout, start, stop,
                        activated, hs):
    """The simple RNN's time loop forward; see
    :meth:`lamina.backends.Backend.recurrent_loop_kernels`."""
    feed = np.empty((stop - start, hs.shape[2]), dtype=hs.dtype)
    for t in range(projection.shape[0]):
        _feed(hs[t], dropout, start, feed)
        a, x_part, h_new = activated[t, start:stop], projection[t, start:stop], \
            hs[t + 1, start:stop]
        _matmul(gemm, feed, recurrent_kernel, a, False)
        for r in range(a.shape[0]):
            for j in range(a.shape[1]):
                value = tanh(a[r, j] + x_part[r, j])
                a[r, j], h_new[r, j] = value, value
        _carry(keep, t, start, stop, hs[t + 1], hs[t])


@numba.njit(**KERNEL_OPTIONS)
def simple_loop_backward(gemm, upstream, activated, transposed_recurrent, keep, dropout,
                         start, stop, dh, d_pre, bias_sum):
    """The simple RNN's time loop backward; see
    :meth:`lamina.backends.Backend.recurrent_loop_kernels`."""
    state = dh[start:stop].copy()
    previous = np.empty_like(state)
    one = state.dtype.type(1.0)
    for t in range(activated.shape[0] - 1, -1, -1):
        _accumulate(state, upstream[t + 1], start)
        d, a = d_pre[t, start:stop], activated[t, start:stop]
        _through(keep, t, start, state, d)
        for r in range(d.shape[0]):
            for j in range(d.shape[1]):
                d[r, j] *= one - a[r, j] * a[r, j]
        _add_column_sums(d, bias_sum)
        _matmul(gemm, d, transposed_recurrent, previous, False)
        _passed(keep, t, start, dropout, previous, state)
    dh[start:stop] = state


_KERNELS = {"lstm": (lstm_loop_forward, lstm_loop_backward),
            "gru": (gru_loop_forward, gru_loop_backward),
            "simple_rnn": (simple_loop_forward, simple_loop_backward)}

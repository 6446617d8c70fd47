"""The NumPy engine's compiled attention core: for a block of batch rows, every (sample,
head) slice of ``dropout(softmax(mask(scale q k^T))) v`` and its backward in ONE Numba
call, the GEMMs through NumPy's BLAS (:mod:`.blas`) and the softmax between them.

As array calls (:func:`lamina.ops.attention_core`'s other path) each stacked matmul is a
NumPy gufunc that calls BLAS once per (sample, head) with its own overhead, and the
scaling of q, the mask, the softmax, the keep product and the dropout are each a pass
over the whole ``(batch, heads, target, source)`` array. At a small Transformer's sizes
(W5: 128 slices of 64x64 scores per layer) those passes and calls cost about as much as
the GEMMs. Here a slice's scores are made by one GEMM (``alpha = scale``, no scaled copy
of q), then masked, normalized, multiplied by the mask and dropped out while they are in
cache, and multiplied by v straight into the ``(batch, target, heads, value_depth)``
context. The backward runs the same slices: ``g v^T``, ``attended^T g``, the dropout, the
softmax backward and ``scale dS k``, ``scale dS^T q``, each gradient written in place.

The arithmetic is the array path's (the softmax of :mod:`.softmax`, masked scores -1e9,
dropout ``(draws >= rate) / (1 - rate)`` from the same uniform draws), so results agree
to rounding. ``q``, ``k``, ``v``, ``g`` and the gradients are 4-D ``(batch, length,
heads, depth)`` arrays whose last axis is contiguous and whose length axis has a
positive stride of at least a row (views of a packed projection included: BLAS reads
them with their row stride as the leading dimension); ``probabilities``, ``attended`` and
``draws`` are C-contiguous ``(batch, heads, target, source)``. The contracts are
:meth:`lamina.backends.Backend.attention_core_kernels`.
"""

import functools

import numba
import numpy as np

from .blas import NO_TRANSPOSE, ROW_MAJOR, TRANSPOSE, cblas_gemm
from .cells import INLINE_OPTIONS, KERNEL_OPTIONS
from .softmax import softmax_backward_rows, softmax_rows

_LARGE_NEGATIVE = -1e9


def attention_kernels(dtype):
    """``(forward, backward)`` with the GEMM of ``dtype`` bound, or None without a CBLAS
    entry point."""
    gemm = cblas_gemm(dtype)
    if gemm is None:
        return None
    return functools.partial(attention_forward, gemm), functools.partial(attention_backward,
                                                                         gemm)


@numba.njit(**INLINE_OPTIONS)
def _gemm(gemm, trans_a, trans_b, alpha, a, b, out):
    """``out = alpha * op(a) @ op(b)`` for 2-D views with a contiguous last axis (each
    passed with its row stride as the leading dimension)."""
    item = out.itemsize
    m, n = out.shape
    k = a.shape[0] if trans_a == TRANSPOSE else a.shape[1]
    gemm(ROW_MAJOR, trans_a, trans_b, m, n, k, alpha, a.ctypes.data, a.strides[0] // item,
         b.ctypes.data, b.strides[0] // item, 0.0, out.ctypes.data, out.strides[0] // item)


@numba.njit(**INLINE_OPTIONS)
def _dropout_scale(draws, rate, inverse, t, s):
    """The dropout factor of one entry: ``inverse`` where the draw is kept, else 0."""
    return inverse if draws[t, s] >= rate else draws.dtype.type(0.0)


@numba.njit(**KERNEL_OPTIONS)
def attention_forward(gemm, q, k, v, scale, keep, draws, rate, inverse, start, stop,
                      probabilities, attended, context):
    """The forward of the batch rows ``start:stop``; see
    :meth:`lamina.backends.Backend.attention_core_kernels`."""
    heads, target, source = probabilities.shape[1:]
    masked, dropped = keep.shape[0] > 0, draws.shape[0] > 0
    exps = np.empty(source, probabilities.dtype)
    large_negative = probabilities.dtype.type(_LARGE_NEGATIVE)
    zero = probabilities.dtype.type(0.0)
    for b in range(start, stop):
        for h in range(heads):
            p = probabilities[b, h]
            _gemm(gemm, NO_TRANSPOSE, TRANSPOSE, scale, q[b, :, h], k[b, :, h], p)
            if masked:
                for t in range(target):
                    for s in range(source):
                        if not keep[b, t, s]:
                            p[t, s] = large_negative
            softmax_rows(p, p, False, exps)
            if masked:
                for t in range(target):
                    for s in range(source):
                        if not keep[b, t, s]:
                            p[t, s] = zero
            a = attended[b, h]
            if dropped:
                drawn = draws[b, h]
                for t in range(target):
                    for s in range(source):
                        a[t, s] = p[t, s] * _dropout_scale(drawn, rate, inverse, t, s)
            _gemm(gemm, NO_TRANSPOSE, NO_TRANSPOSE, 1.0, a, v[b, :, h], context[b, :, h])


@numba.njit(**KERNEL_OPTIONS)
def attention_backward(gemm, g, q, k, v, scale, probabilities, attended, draws, rate,
                       inverse, start, stop, dq, dk, dv):
    """The backward of the batch rows ``start:stop``; see
    :meth:`lamina.backends.Backend.attention_core_kernels`."""
    heads, target, source = probabilities.shape[1:]
    dropped = draws.shape[0] > 0
    d_scores = np.empty((target, source), probabilities.dtype)
    for b in range(start, stop):
        for h in range(heads):
            g_bh = g[b, :, h]
            _gemm(gemm, NO_TRANSPOSE, TRANSPOSE, 1.0, g_bh, v[b, :, h], d_scores)
            if dv.shape[0]:
                _gemm(gemm, TRANSPOSE, NO_TRANSPOSE, 1.0, attended[b, h], g_bh, dv[b, :, h])
            if not (dq.shape[0] or dk.shape[0]):
                continue
            if dropped:
                drawn = draws[b, h]
                for t in range(target):
                    for s in range(source):
                        d_scores[t, s] *= _dropout_scale(drawn, rate, inverse, t, s)
            # Masked probabilities are 0, so the softmax backward from them gives 0 there
            # and leaves the masked entries out of each row's sum, as the mask requires.
            softmax_backward_rows(d_scores, probabilities[b, h], d_scores, False)
            if dq.shape[0]:
                _gemm(gemm, NO_TRANSPOSE, NO_TRANSPOSE, scale, d_scores, k[b, :, h],
                      dq[b, :, h])
            if dk.shape[0]:
                _gemm(gemm, TRANSPOSE, NO_TRANSPOSE, scale, d_scores, q[b, :, h],
                      dk[b, :, h])

"""The NumPy engine's compiled softmax and log-softmax over the last axis, forward and
backward: each row in one loop that stays in cache.

As array calls a softmax is five passes over memory (the row max, the shift, ``exp``, the
row sum, the division) and its backward three; for the attention probabilities of a small
Transformer (W5: 128 rows of 64 per head and sample) the row max alone took 40% of the
forward. Here each row is read once into cache and finished there: max, then ``exp`` and
the sum, then the scaling. The kernels release the GIL, so the attention op's row blocks
run them side by side on threads.

The arithmetic is the array-call path's (:meth:`lamina.backends.array_engine.ArrayEngine.softmax`
and the ops' vjps), in the arrays' dtype: ``y = exp(x - max) / sum``,
``log_y = x - max - log(sum)``; backward ``y * (g - sum(g * y))`` and
``g - exp(log_y) * sum(g)``. NaN and inf pass through as in NumPy. The NumPy engine imports
this module on first use through :func:`lamina.backends.numpy.engine.compiled`. All
arguments are C-contiguous 2-D arrays of one float dtype (rows, width), width >= 1.
"""

import numba
import numpy as np
from numba import types
from llvmlite import ir
from numba.extending import intrinsic, overload

_OPTIONS = dict(fastmath={"contract", "arcp", "afn", "reassoc", "nsz"}, error_model="numpy",
                boundscheck=False)
_KERNEL_OPTIONS = dict(_OPTIONS, nogil=True, cache=True)
_LOG2E, _LN2_HIGH, _LN2_LOW = 1.44269504088896341, 0.693359375, -2.12194440e-4
_LOWEST = -87.3365478515625           # exp below this is no normal float32


def exp_shifted(row, peak, out):
    """Write ``exp(row - peak)`` into ``out`` and return its sum (``row <= peak``)."""
    total = 0.0
    for j in range(row.shape[0]):
        out[j] = np.exp(row[j] - peak)
        total += out[j]
    return total


@intrinsic
def _float32_from_bits(typingctx, bits):
    """The float32 whose IEEE bits are the int32 ``bits`` (a register bitcast, which the
    compiler vectorizes; an array ``view`` per row would not be)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.FloatType())

    return types.float32(types.int32), codegen


@numba.njit(**_OPTIONS)
def _exp_shifted_float32(row, peak, out):
    # Cephes' expf (|relative error| <= 2 ulp) written so that the compiler vectorizes
    # it, which a libm call would not be: exp(t) = 2^n p(t - n ln 2), 2^n from its bits.
    total = numba.float32(0.0)
    for j in range(row.shape[0]):
        shifted = row[j] - peak
        t = max(shifted, numba.float32(_LOWEST))
        n = np.floor(t * numba.float32(_LOG2E) + numba.float32(0.5))
        r = t - n * numba.float32(_LN2_HIGH) - n * numba.float32(_LN2_LOW)
        p = r * numba.float32(1.9875691500e-4) + numba.float32(1.3981999507e-3)
        p = p * r + numba.float32(8.3334519073e-3)
        p = p * r + numba.float32(4.1665795894e-2)
        p = p * r + numba.float32(1.6666665459e-1)
        p = p * r + numba.float32(5.0000001201e-1)
        power = _float32_from_bits((numba.int32(n) + numba.int32(127)) << numba.int32(23))
        value = (p * (r * r) + r + numba.float32(1.0)) * power
        # Below the smallest normal result, 0 (as libm's exp underflows).
        value = value if shifted >= t else numba.float32(0.0)
        out[j] = value
        total += value
    return total


@overload(exp_shifted, inline="always")
def _typed_exp_shifted(row, peak, out):
    if row.dtype == types.float32:
        return lambda row, peak, out: _exp_shifted_float32(row, peak, out)

    def generic(row, peak, out):
        total = row.dtype.type(0.0)
        for j in range(row.shape[0]):
            out[j] = np.exp(row[j] - peak)
            total += out[j]
        return total

    return generic


@numba.njit(**_OPTIONS)
def _row_max(row):
    peak = row[0]
    for j in range(1, row.shape[0]):
        peak = max(peak, row[j])
    return peak


@numba.njit(**_OPTIONS)
def softmax_rows(x, out, log, exps):
    """``out[r] = softmax(x[r])`` (``log_softmax`` with ``log``) for every row of the 2-D
    ``x``, with the scratch row ``exps`` (``x``'s dtype, of its width); a helper compiled
    into the kernels that call it (``out`` may be ``x``)."""
    width = x.shape[1]
    for r in range(x.shape[0]):
        row, result = x[r], out[r]
        peak = _row_max(row)
        # The exps go to scratch, never to ``out``: the log-softmax needs the row after
        # them, and when ``out`` is ``x`` the compiler's alias check would otherwise run
        # the exp loop unvectorized (twice as slow in place).
        total = exp_shifted(row, peak, exps)
        if log:
            shift = peak + np.log(total)
            for j in range(width):
                result[j] = row[j] - shift
        else:
            inverse = row.dtype.type(1.0) / total
            for j in range(width):
                result[j] = exps[j] * inverse


@numba.njit(**_OPTIONS)
def _forward_rows(x, out, log):
    width = x.shape[1]
    softmax_rows(x, out, log, np.empty(width, x.dtype))


@numba.njit(**_KERNEL_OPTIONS)
def softmax_forward(x, out):
    """``out[r] = softmax(x[r])`` for every row (``out`` may be ``x``)."""
    _forward_rows(x, out, False)


@numba.njit(**_KERNEL_OPTIONS)
def log_softmax_forward(x, out):
    """``out[r] = log_softmax(x[r])`` for every row (``out`` may be ``x``)."""
    _forward_rows(x, out, True)


@numba.njit(**_OPTIONS)
def softmax_backward_rows(grad, y, out, log):
    """``out = y * (grad - sum(grad * y))`` per row of the 2-D ``grad`` (with ``log``:
    ``grad - exp(y) * sum(grad)``); a helper compiled into the kernels that call it."""
    width = y.shape[1]
    # In place (``out`` is ``grad``, as the attention core calls it) each row is written
    # through the array it is read from: through two names the compiler cannot rule out a
    # partial overlap and runs the loop unvectorized (2.3x slower on rows of 64).
    in_place = out.ctypes.data == grad.ctypes.data and out.strides[0] == grad.strides[0]
    for r in range(y.shape[0]):
        g, p = grad[r], y[r]
        result = g if in_place else out[r]
        total = y.dtype.type(0.0)
        for j in range(width):
            total += g[j] if log else g[j] * p[j]
        for j in range(width):
            result[j] = g[j] - np.exp(p[j]) * total if log else p[j] * (g[j] - total)


@numba.njit(**_KERNEL_OPTIONS)
def softmax_backward(grad, y, out):
    """``out = y * (grad - sum(grad * y))`` per row, from the softmax output ``y``
    (``out`` may be ``grad``)."""
    softmax_backward_rows(grad, y, out, False)


@numba.njit(**_KERNEL_OPTIONS)
def log_softmax_backward(grad, log_y, out):
    """``out = grad - exp(log_y) * sum(grad)`` per row, from the log-softmax output
    (``out`` may be ``grad``)."""
    softmax_backward_rows(grad, log_y, out, True)

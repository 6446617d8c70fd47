"""The NumPy engine's compiled dense epilogue: what follows a dense layer's GEMM, in one
pass over its output, forward and backward.

As array calls a ``Dense(relu)`` made three passes over its (rows, units) output after
the GEMM (the bias, the ReLU, the boolean sign its backward keeps) and its backward two
(the gradient times that sign, then the bias gradient's column sums); a linear one made
one each. Here each row is finished while it is in cache, and the op runs the rows in
blocks on threads (the kernels release the GIL; each block sums its own bias gradient).

The arithmetic is the array-call path's (``out += bias``, ``maximum(out, 0)``,
``out > 0``; ``g * kept`` and the column sums row after row, in the arrays' dtype). The
NumPy engine hands these kernels out through
:meth:`lamina.backends.numpy.engine.NumpyBackend.dense_epilogue_kernels`. Arrays are
C-contiguous 2-D (rows, units) of one float dtype, the sign boolean; an argument a call
does not use gets a stand-in of the right type and a False flag.
"""

import numba

_KERNEL_OPTIONS = dict(error_model="numpy", boundscheck=False, nogil=True, cache=True)


@numba.njit(**_KERNEL_OPTIONS)
def epilogue_forward(out, bias, has_bias, relu, kept):
    """In place on ``out``: ``+= bias`` (when ``has_bias``), then with ``relu`` the ReLU,
    writing the sign ``out > 0`` into ``kept``."""
    zero = out.dtype.type(0.0)
    for r in range(out.shape[0]):
        row = out[r]
        if has_bias:
            for j in range(row.shape[0]):
                row[j] += bias[j]
        if relu:
            sign = kept[r]
            for j in range(row.shape[0]):     # a select, not a branch: it vectorizes
                value = row[j]
                positive = value > zero
                sign[j] = positive
                # NaN stays NaN, as NumPy's maximum(value, 0) keeps it.
                row[j] = value if positive or value != value else zero


@numba.njit(**_KERNEL_OPTIONS)
def epilogue_backward(grad, kept, relu, grad_out, bias_sum, has_bias):
    """With ``relu``: ``grad_out = grad * kept``; with ``has_bias`` the column sums of
    the gradient before the bias (``grad_out``, or ``grad`` without ``relu``) are added to
    ``bias_sum`` (units,), row after row."""
    zero = grad.dtype.type(0.0)
    for r in range(grad.shape[0]):
        row = grad[r]
        if relu:
            sign, result = kept[r], grad_out[r]
            for j in range(row.shape[0]):
                result[j] = row[j] if sign[j] else zero
            row = result
        if has_bias:
            for j in range(row.shape[0]):
                bias_sum[j] += row[j]

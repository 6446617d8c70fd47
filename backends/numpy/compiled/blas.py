"""NumPy's own BLAS for the compiled kernels: its CBLAS ``sgemm``/``dgemm`` as a ctypes
function that Numba kernels call (row-major, any leading dimensions).

Kernels that interleave small GEMMs with arithmetic of their own (a recurrent time loop,
the attention core's softmax between its two products) would otherwise return to Python
for every GEMM. Calling the library NumPy links (found through threadpoolctl) keeps the
GEMMs exactly as fast as NumPy's matmul and under the same thread settings (the engine's
row blocks limit BLAS to one thread each, :mod:`lamina.backends.numpy.threads`). A kernel
passes ``array.ctypes.data`` of a matrix view and its row stride as the leading
dimension, so strided views (a head of a ``(batch, length, heads, depth)`` array, a
row range) go to BLAS without copies.
"""

import ctypes
import functools

import numpy as np

#: CBLAS enum values: row-major storage, an operand as it is or transposed.
ROW_MAJOR, NO_TRANSPOSE, TRANSPOSE = 101, 111, 112
#: CBLAS gemm symbols tried, with the width of their integer arguments ({} is s or d).
_SYMBOLS = (("scipy_cblas_{}gemm64_", ctypes.c_int64), ("cblas_{}gemm64_", ctypes.c_int64),
            ("cblas_{}gemm", ctypes.c_int32))


def _blas_libraries():
    """File paths of the BLAS libraries loaded in this process, NumPy's first."""
    import threadpoolctl

    paths = [lib.filepath for lib in
             threadpoolctl.ThreadpoolController().select(user_api="blas").lib_controllers]
    return sorted(paths, key=lambda path: "numpy" not in path)


@functools.lru_cache(maxsize=None)
def cblas_gemm(dtype):
    """NumPy's CBLAS ``sgemm``/``dgemm`` for float32/float64 as a ctypes function
    ``gemm(order, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)``, or
    None when none is found (or for another dtype)."""
    letter = {np.dtype("float32"): "s", np.dtype("float64"): "d"}.get(np.dtype(dtype))
    if letter is None:
        return None
    scalar = ctypes.c_float if letter == "s" else ctypes.c_double
    for path in _blas_libraries():
        library = ctypes.CDLL(path)
        for pattern, integer in _SYMBOLS:
            function = getattr(library, pattern.format(letter), None)
            if function is not None:
                function.argtypes = [ctypes.c_int] * 3 + [integer] * 3 + [
                    scalar, ctypes.c_void_p, integer, ctypes.c_void_p, integer, scalar,
                    ctypes.c_void_p, integer]
                function.restype = None
                return function
    return None

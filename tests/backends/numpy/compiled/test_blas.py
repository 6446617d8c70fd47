"""NumPy's CBLAS GEMM for the compiled kernels (``backends/numpy/compiled/blas.py``):
called from a Numba kernel on strided views (their row strides as leading dimensions),
with either operand transposed and a scale, against NumPy's matmul; no GEMM for other
dtypes."""

import numba
import numpy as np
import pytest

from lamina.backends.numpy.compiled import blas

pytest.importorskip("numba")
RNG = np.random.default_rng(4)


@numba.njit
def _product(gemm, trans_a, trans_b, alpha, a, b, out):
    """``out = alpha op(a) op(b)`` for 2-D views with a contiguous last axis."""
    item = out.itemsize
    k = a.shape[0] if trans_a == blas.TRANSPOSE else a.shape[1]
    gemm(blas.ROW_MAJOR, trans_a, trans_b, out.shape[0], out.shape[1], k, alpha,
         a.ctypes.data, a.strides[0] // item, b.ctypes.data, b.strides[0] // item, 0.0,
         out.ctypes.data, out.strides[0] // item)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("trans_a", [False, True])
@pytest.mark.parametrize("trans_b", [False, True])
def test_gemm_on_strided_views_matches_numpy(dtype, trans_a, trans_b):
    gemm = blas.cblas_gemm(dtype)
    assert gemm is not None
    m, n, k = 5, 3, 4
    # operands are column blocks of wider arrays: their rows are strided
    rows_a, columns_a = (k, m) if trans_a else (m, k)
    rows_b, columns_b = (n, k) if trans_b else (k, n)
    a = RNG.standard_normal((7, 11)).astype(dtype)[:rows_a, 2:2 + columns_a]
    b = RNG.standard_normal((6, 9)).astype(dtype)[:rows_b, 1:1 + columns_b]
    wide = np.full((m, 8), -1.0, dtype=dtype)
    flags = [blas.TRANSPOSE if flag else blas.NO_TRANSPOSE for flag in (trans_a, trans_b)]
    _product(gemm, flags[0], flags[1], 0.5, a, b, wide[:, 3:3 + n])
    expected = 0.5 * (a.T if trans_a else a) @ (b.T if trans_b else b)
    np.testing.assert_allclose(wide[:, 3:3 + n], expected,
                               rtol=1e-5 if dtype == "float32" else 1e-12)
    np.testing.assert_array_equal(wide[:, :3], -1.0)
    np.testing.assert_array_equal(wide[:, 3 + n:], -1.0)


def test_no_gemm_for_other_dtypes():
    assert blas.cblas_gemm("float16") is None
    assert blas.cblas_gemm("int32") is None

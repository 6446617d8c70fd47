"""The NumPy engine's compiled time loops (``backends/numpy/compiled/recurrent_loop.py``):
the CBLAS GEMM they call against NumPy's matmul (plain, transposed, on a row range of a
bigger array), what the engine answers for dtypes without a GEMM, and a row block leaving
the other rows alone. The loops against the Python-stepped ops are in
``tests/backends/ops/test_recurrent_loop.py``."""

import numba
import numpy as np
import pytest

from lamina.backends.numpy import engine as numpy_backend

pytest.importorskip("numba")
recurrent_loop = numpy_backend.compiled("recurrent_loop")
pytestmark = pytest.mark.skipif(recurrent_loop is None, reason="LAMINA_JIT=0 is set")
RNG = np.random.default_rng(8)


@numba.njit
def _rows_product(gemm, a, b, out, start, stop, transpose):
    """``out[start:stop] = a[start:stop] @ b`` (or ``@ b.T``) through the kernels' GEMM."""
    recurrent_loop._matmul(gemm, a[start:stop], b, out[start:stop], transpose)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("transpose", [False, True])
def test_gemm_matches_numpy_on_a_row_range(dtype, transpose):
    gemm = recurrent_loop.cblas_gemm(dtype)
    assert gemm is not None
    a = RNG.standard_normal((7, 5)).astype(dtype)
    b = RNG.standard_normal((3, 5) if transpose else (5, 3)).astype(dtype)
    out = np.full((7, 3), -1.0, dtype=dtype)
    _rows_product(gemm, a, b, out, 2, 6, transpose)
    expected = a[2:6] @ (b.T if transpose else b)
    np.testing.assert_allclose(out[2:6], expected, rtol=1e-5 if dtype == "float32" else 1e-12)
    np.testing.assert_array_equal(out[:2], -1.0)
    np.testing.assert_array_equal(out[6:], -1.0)


def test_no_gemm_no_loops_for_other_dtypes():
    assert recurrent_loop.cblas_gemm("float16") is None
    assert recurrent_loop.loop_kernels("lstm", "float16") is None
    assert numpy_backend.NumpyBackend().recurrent_loop_kernels("gru", "float16") is None


def test_a_row_block_leaves_the_other_rows_alone():
    steps, batch, units = 3, 4, 2
    forward, _ = recurrent_loop.loop_kernels("simple_rnn", "float32")
    projection = RNG.standard_normal((steps, batch, units)).astype("float32")
    recurrent = RNG.standard_normal((units, units)).astype("float32")
    activated = np.zeros((steps, batch, units), dtype="float32")
    hs = np.zeros((steps + 1, batch, units), dtype="float32")
    none = np.zeros((0, 0), dtype="float32")
    forward(projection, recurrent, np.zeros((0, 0), dtype=bool), none, 1, 3, activated, hs)
    np.testing.assert_array_equal(hs[:, [0, 3]], 0.0)
    h = np.zeros((2, units))
    for t in range(steps):
        h = np.tanh(h @ recurrent + projection[t, 1:3])
        np.testing.assert_allclose(hs[t + 1, 1:3], h, rtol=1e-5, atol=1e-6)

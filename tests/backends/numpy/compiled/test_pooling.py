"""The NumPy engine's compiled 2-D max pooling (``backends/compiled_pooling.py``) gives
exactly what the strided-view kernels give: outputs, the offset of each window's first
maximum (ties included) and input gradients, for tiled, overlapping, clipped and padded
windows."""

import numpy as np
import pytest

from lamina import ops
from lamina.backends.numpy import engine as numpy_backend
from lamina.backends import pool as pool_kernels, use_backend

pytest.importorskip("numba")
compiled_pooling = numpy_backend.compiled("pooling")
pytestmark = pytest.mark.skipif(compiled_pooling is None, reason="LAMINA_JIT=0 is set")

RNG = np.random.default_rng(3)

CASES = {
    "tiled_2x2": ((3, 8, 6, 5), dict(pool_size=2)),
    "valid_not_tiled": ((2, 11, 9, 4), dict(pool_size=2)),
    "overlapping_same": ((2, 7, 9, 3), dict(pool_size=3, strides=2, padding="same")),
    "rectangular_strided": ((2, 9, 10, 2), dict(pool_size=(2, 3), strides=(3, 1))),
    "wide_window_int16_offsets": ((1, 13, 12, 2), dict(pool_size=12, strides=1)),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("ties", [False, True, "nan"], ids=["distinct", "ties", "nan"])
@pytest.mark.parametrize("case", list(CASES))
def test_compiled_max_pooling_equals_strided_views(case, ties, dtype):
    shape, options = CASES[case]
    x = RNG.standard_normal(shape)
    if ties:
        x = np.round(x)                      # few distinct values: many tied maxima
    if ties == "nan":
        x.reshape(-1)[::7] = np.nan          # a NaN wins its window, as with np.maximum
    x = x.astype(dtype)
    arguments = (options["pool_size"], options.get("strides"), options.get("padding", "valid"),
                 "max")
    want, want_context = pool_kernels.pool_forward(np, x, *arguments)
    got, context = pool_kernels.pool_forward(np, x, *arguments, compiled=compiled_pooling)
    np.testing.assert_array_equal(got, want)
    defined = ~np.isnan(got)              # where a NaN won, no cell is "the" maximum
    np.testing.assert_array_equal(context[-1][defined], want_context[-1][defined])
    assert got.dtype == dtype and context[-1].dtype == want_context[-1].dtype
    grad = RNG.standard_normal(got.shape).astype(dtype) * defined
    want_dx = pool_kernels.pool_backward(np, grad, want_context)
    got_dx = pool_kernels.pool_backward(np, grad, context, compiled=compiled_pooling)
    np.testing.assert_allclose(got_dx, want_dx, rtol=1e-6, atol=1e-6)
    destination = np.full(x.shape, np.nan, dtype)
    pool_kernels.pool_backward(np, grad, context, destination, compiled=compiled_pooling)
    np.testing.assert_allclose(destination, want_dx, rtol=1e-6, atol=1e-6)


def test_float16_pools_as_array_calls():
    x = RNG.standard_normal((2, 6, 6, 3)).astype("float16")
    assert numpy_backend.NumpyBackend().compiled_module("pooling", x.dtype) is None
    with use_backend("numpy"):
        pooled = ops.max_pool(x, 2).numpy()
    assert pooled.dtype == np.float16
    np.testing.assert_array_equal(pooled, x.reshape(2, 3, 2, 3, 2, 3).max(axis=(2, 4)))

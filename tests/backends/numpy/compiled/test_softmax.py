"""The NumPy engine's compiled softmax and log-softmax (``backends/numpy/compiled/softmax.py``):
the kernels against the array-call path (forward and gradients, float32 and float64),
float32's vectorized ``exp`` against float64, underflow and masked rows, and the axes and
dtypes that stay array calls."""

import numpy as np
import pytest
from harness.compiled import assert_matches_array_calls

from lamina import ops
from lamina.backends.numpy import engine as numpy_engine

pytest.importorskip("numba")
kernels = numpy_engine.compiled("softmax")
pytestmark = pytest.mark.skipif(kernels is None, reason="LAMINA_JIT=0 is set")
RNG = np.random.default_rng(3)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", [ops.softmax, ops.log_softmax], ids=["softmax", "log_softmax"])
def test_op_matches_the_array_calls(monkeypatch, dtype, op):
    x = (RNG.standard_normal((4, 3, 37)) * 4).astype(dtype)      # odd width: vector tails
    assert_matches_array_calls(monkeypatch, "softmax", lambda t: op(t, axis=-1), [x])


def test_float32_exp_is_accurate_over_its_range():
    x = np.linspace(-87.0, 0.0, 100001, dtype=np.float32)[None]
    out = np.empty_like(x)
    kernels.softmax_forward(x, out)
    exact = np.exp(x.astype(np.float64) - np.log(np.exp(x.astype(np.float64)).sum()))
    np.testing.assert_allclose(out, exact, rtol=2e-6, atol=1e-30)


def test_underflow_gives_exact_zeros_as_masked_rows_need():
    z = np.array([[1000.0, 0.0, -1000.0], [-1e9, 0.0, -1e9], [-1e9, -1e9, -1e9]], np.float32)
    out = np.empty_like(z)
    kernels.softmax_forward(z, out)
    np.testing.assert_array_equal(out[:2], [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    np.testing.assert_allclose(out[2], 1 / 3, rtol=1e-6)


def test_in_place_and_the_backward_kernels():
    x = RNG.standard_normal((5, 9)).astype(np.float32)
    g = RNG.standard_normal((5, 9)).astype(np.float32)
    y = np.exp(x) / np.exp(x).sum(axis=1, keepdims=True)
    in_place = x.copy()
    kernels.softmax_forward(in_place, in_place)
    np.testing.assert_allclose(in_place, y, rtol=1e-6)
    out = np.empty_like(g)
    kernels.softmax_backward(g, y, out)
    np.testing.assert_allclose(out, y * (g - (g * y).sum(axis=1, keepdims=True)), atol=1e-6)
    kernels.log_softmax_backward(g, np.log(y), out)
    np.testing.assert_allclose(out, g - y * g.sum(axis=1, keepdims=True), atol=1e-6)


def test_other_axes_and_float16_use_array_calls(engine):
    x = RNG.standard_normal((3, 4)).astype(np.float16)
    assert ops.softmax(x).dtype == np.float16
    np.testing.assert_allclose(ops.softmax(x.astype(np.float32), axis=0).numpy().sum(0), 1,
                               rtol=1e-6)


def test_nan_and_inf_give_nan_rows_as_numpy_does():
    z = np.array([[np.nan, 0, 1], [np.inf, 0, 1], [0, 1, 2]], np.float32)
    out = np.empty_like(z)
    kernels.softmax_forward(z, out)
    assert np.isnan(out[:2]).all() and np.isfinite(out[2]).all()


def test_log_softmax_in_place():
    x = RNG.standard_normal((4, 10)).astype(np.float32)
    want = x - x.max(1, keepdims=True)
    want -= np.log(np.exp(want).sum(1, keepdims=True))
    kernels.log_softmax_forward(x, x)
    np.testing.assert_allclose(x, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("log", [False, True])
def test_the_backward_in_place_equals_it_into_another_array(log):
    backward = kernels.log_softmax_backward if log else kernels.softmax_backward
    y = RNG.random((6, 64)).astype(np.float32)
    g = RNG.standard_normal((6, 64)).astype(np.float32)
    out = np.empty_like(g)
    backward(g, y, out)
    in_place = g.copy()
    backward(in_place, y, in_place)
    np.testing.assert_array_equal(in_place, out)
    wide = np.concatenate([g[:1], g])      # out one row behind grad: each row of out
    backward(wide[1:], y, wide[:-1])       # overwrites a row of grad already consumed
    np.testing.assert_array_equal(wide[:-1], out)

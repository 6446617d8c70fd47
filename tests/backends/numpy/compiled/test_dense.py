"""The NumPy engine's compiled dense epilogue (``backends/numpy/compiled/dense.py``): the
fused dense op and the Dense layer against the array-call path (forward and gradients,
linear and ReLU, with and without bias, in one block and in several on threads, float32
and float64), and the kernels against the formula."""

import numpy as np
import pytest
from harness.compiled import assert_matches_array_calls

from lamina import layers, ops
from lamina.backends.numpy import engine as numpy_engine, threads as batch_threads
from lamina.backends.ops import activation_kernels

pytest.importorskip("numba")
kernels = numpy_engine.compiled("dense")
pytestmark = pytest.mark.skipif(kernels is None, reason="LAMINA_JIT=0 is set")
RNG = np.random.default_rng(8)


@pytest.fixture(autouse=True)
def fused_at_any_size(monkeypatch):
    """The kernels take these tests' small arrays too (by default only large ones)."""
    monkeypatch.setattr(activation_kernels, "FUSED_EPILOGUE_MIN_SIZE", 1)


@pytest.fixture(params=[1, 3], ids=["one_block", "three_blocks"])
def blocks(request, monkeypatch):
    if request.param > 1:
        monkeypatch.setattr(batch_threads, "thread_count", lambda: request.param)
        monkeypatch.setattr(batch_threads, "MIN_BLOCK_ELEMENTS", 1)
    return request.param


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("activation", ["relu", "linear"])
@pytest.mark.parametrize("with_bias", [True, False])
def test_op_matches_the_array_calls(monkeypatch, blocks, dtype, activation, with_bias):
    x = RNG.standard_normal((7, 5, 6)).astype(dtype)
    kernel = RNG.standard_normal((6, 9)).astype(dtype)
    inputs = [x, kernel] + ([RNG.standard_normal(9).astype(dtype)] if with_bias else [])

    def op(a, w, b=None):
        return ops.dense(a, w, b, activation=activation)

    compiled = assert_matches_array_calls(monkeypatch, "dense", op, inputs, rtol=1e-6,
                                          atol=1e-6 if dtype == "float32" else 1e-12)
    if activation == "relu":
        assert (compiled[0] == 0).any() and (compiled[0] > 0).any()


def test_layer_matches_the_array_calls(monkeypatch, blocks):
    layer = layers.Dense(16, activation="relu")
    x = RNG.standard_normal((40, 12)).astype(np.float32)
    layer(x)
    layer.bias.assign(RNG.standard_normal(16).astype(np.float32))
    compiled = assert_matches_array_calls(monkeypatch, "dense", layer, [x], rtol=1e-6,
                                          atol=1e-6)
    assert compiled[0].dtype == np.float32


def test_kernels_follow_the_formula():
    out = RNG.standard_normal((6, 5))
    bias, grad = RNG.standard_normal(5), RNG.standard_normal((6, 5))
    want = np.maximum(out + bias, 0)
    kept = np.empty(out.shape, bool)
    kernels.epilogue_forward(out, bias, True, True, kept)
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(kept, want > 0)
    grad_out, bias_sum = np.empty_like(grad), np.full(5, 1.0)
    kernels.epilogue_backward(grad, kept, True, grad_out, bias_sum, True)
    np.testing.assert_array_equal(grad_out, grad * kept)
    np.testing.assert_allclose(bias_sum, 1.0 + (grad * kept).sum(0), rtol=1e-12)
    linear_sum = np.zeros(5)
    kernels.epilogue_backward(grad, kept[:1, :1], False, grad[:1], linear_sum, True)
    np.testing.assert_allclose(linear_sum, grad.sum(0), rtol=1e-12)


def test_the_relu_keeps_nan_and_gives_zero_for_negative_zero_as_numpy_maximum():
    out = np.array([[np.nan, -0.0, -1.5, 2.0, 0.0, -np.inf, np.inf, 3.0, -2.0]], np.float32)
    want = np.maximum(out, 0)
    kept = np.empty(out.shape, bool)
    kernels.epilogue_forward(out, out[0], False, True, kept)
    np.testing.assert_array_equal(out, want)
    assert not np.signbit(out[0, 1])
    np.testing.assert_array_equal(kept, want > 0)


def test_small_outputs_keep_the_array_calls(monkeypatch):
    monkeypatch.setattr(activation_kernels, "FUSED_EPILOGUE_MIN_SIZE", 1000)
    calls = []
    original = numpy_engine.NumpyBackend.dense_epilogue_kernels

    def spy(self, dtype):
        calls.append(dtype)
        return original(self, dtype)

    monkeypatch.setattr(numpy_engine.NumpyBackend, "dense_epilogue_kernels", spy)
    x, w = (RNG.standard_normal(shape).astype(np.float32) for shape in ((4, 6), (6, 8)))
    ops.dense(x, w, activation="relu")
    assert calls == []
    ops.dense(np.tile(x, (50, 1)), w, activation="relu")     # 200 x 8 = 1600 values
    assert calls == [np.float32]

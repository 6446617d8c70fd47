"""The NumPy engine's compiled layer normalization (``backends/numpy/compiled/normalization.py``):
the op and the layer against the array-call path (forward and gradients, with and without
gamma/beta, float32 and float64) and the kernels against the formula."""

import numpy as np
import pytest
from harness.compiled import assert_matches_array_calls

from lamina import layers, ops
from lamina.backends.numpy import engine as numpy_engine

pytest.importorskip("numba")
kernels = numpy_engine.compiled("normalization")
pytestmark = pytest.mark.skipif(kernels is None, reason="LAMINA_JIT=0 is set")
RNG = np.random.default_rng(4)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("affine", ["both", "gamma", "none"])
def test_op_matches_the_array_calls(monkeypatch, dtype, affine):
    x = (RNG.standard_normal((3, 5, 19)) * 3 + 1).astype(dtype)
    gamma, beta = (RNG.standard_normal(19).astype(dtype) for _ in range(2))
    inputs = [x, gamma, beta][:{"both": 3, "gamma": 2, "none": 1}[affine]]

    def op(a, g=None, b=None):
        return ops.layer_normalization(a, g, b, 1e-3)

    assert_matches_array_calls(monkeypatch, "normalization", op, inputs, rtol=2e-5,
                               atol=2e-5 if dtype == "float32" else 1e-10)


def test_layer_matches_the_array_calls(monkeypatch):
    layer = layers.LayerNormalization(epsilon=1e-5)
    x = RNG.standard_normal((4, 6, 32)).astype(np.float32)
    layer(x)
    layer.gamma.assign(RNG.standard_normal(32).astype(np.float32))
    compiled = assert_matches_array_calls(monkeypatch, "normalization", layer, [x],
                                          rtol=2e-5, atol=2e-5)
    assert compiled[0].dtype == np.float32


def test_kernels_follow_the_formula():
    x = RNG.standard_normal((6, 7))
    gamma, beta, g = RNG.standard_normal(7), RNG.standard_normal(7), RNG.standard_normal((6, 7))
    y, normalized, inv_std = np.empty_like(x), np.empty_like(x), np.empty(6)
    kernels.layer_norm_forward(x, gamma, beta, 0.01, True, True, y, normalized, inv_std)
    mean, var = x.mean(1, keepdims=True), x.var(1, keepdims=True)
    np.testing.assert_allclose(normalized, (x - mean) / np.sqrt(var + 0.01), rtol=1e-12)
    np.testing.assert_allclose(y, normalized * gamma + beta, rtol=1e-12)
    grad_x, grad_gamma, grad_beta = np.empty_like(x), np.zeros(7), np.zeros(7)
    kernels.layer_norm_backward(g, normalized, gamma, inv_std, True, grad_x, grad_gamma,
                                grad_beta)
    gn = g * gamma
    want = (gn - gn.mean(1, keepdims=True)
            - normalized * (gn * normalized).mean(1, keepdims=True)) * inv_std[:, None]
    np.testing.assert_allclose(grad_x, want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(grad_gamma, (g * normalized).sum(0), rtol=1e-12)
    np.testing.assert_allclose(grad_beta, g.sum(0), rtol=1e-12)

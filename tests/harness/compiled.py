"""Comparing an op with the NumPy engine's compiled kernels to the same op as array calls
(``from harness.compiled import ...``)."""

import numpy as np

import lamina
from lamina.backends import use_backend
from lamina.backends.numpy import engine as numpy_engine


def forward_and_gradients(op, inputs, seed=0):
    """``op(*inputs)`` on the NumPy engine and the gradients of ``sum(out * r)`` (``r``
    random, from ``seed``) with respect to every float input, as NumPy arrays."""
    with use_backend("numpy"):
        tensors = [lamina.Tensor(x, requires_grad=True) if np.asarray(x).dtype.kind == "f"
                   else x for x in inputs]
        out = op(*tensors)
        r = np.random.default_rng(seed).standard_normal(out.shape).astype(out.dtype)
        wrt = [t for t in tensors if isinstance(t, lamina.Tensor)]
        gradients = lamina.grad(lamina.ops.sum(out * r), wrt)
        return [out.numpy()] + [np.asarray(g) for g in gradients]


def assert_matches_array_calls(monkeypatch, module, op, inputs, rtol=1e-5, atol=1e-6):
    """The forward and gradients of ``op`` with the compiled kernels ``module``
    (``"softmax"``, ...) equal those with the kernels switched off (the array-call path),
    in the inputs' dtype; returns the compiled results."""
    assert numpy_engine.compiled(module) is not None
    compiled = forward_and_gradients(op, inputs)
    monkeypatch.setitem(numpy_engine._COMPILED, module, None)
    array_calls = forward_and_gradients(op, inputs)
    monkeypatch.undo()
    for got, want in zip(compiled, array_calls):
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    return compiled

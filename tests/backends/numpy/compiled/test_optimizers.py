"""The NumPy engine's compiled Adam step (``backends/compiled_optimizers.py``) against the
array-call step it replaces: Adam, AMSGrad and AdamW, float32 and float64, several steps;
arrays it cannot take (strided, mixed dtypes) go the array-call way."""

import numpy as np
import pytest

from lamina.backends.numpy import engine as numpy_backend

pytest.importorskip("numba")
pytestmark = pytest.mark.skipif(numpy_backend.compiled("optimizers") is None,
                                reason="LAMINA_JIT=0 is set")

RNG = np.random.default_rng(9)


def run_steps(update, dtype, amsgrad, weight_decay, steps=4, shape=(37, 5)):
    variable = RNG.standard_normal(shape).astype(dtype)
    m, v = np.zeros(shape, dtype), np.zeros(shape, dtype)
    v_hat = np.zeros(shape, dtype) if amsgrad else None
    gradients = [RNG.standard_normal(shape).astype(dtype) for _ in range(steps)]
    for step, gradient in enumerate(gradients, start=1):
        update(variable, gradient, m, v, 0.01, 0.9, 0.999, 1e-7, step, v_hat=v_hat,
               weight_decay=weight_decay)
    return [variable, m, v] + ([] if v_hat is None else [v_hat])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("amsgrad,weight_decay", [(False, 0.0), (True, 0.0), (False, 0.004),
                                                  (True, 0.3)])
def test_compiled_adam_equals_array_calls(dtype, amsgrad, weight_decay, monkeypatch):
    engine = numpy_backend.NumpyBackend()
    state = RNG.bit_generator.state
    compiled = run_steps(engine.adam_update, dtype, amsgrad, weight_decay)
    RNG.bit_generator.state = state
    monkeypatch.setattr(numpy_backend.NumpyBackend, "_compiled", lambda self, name, d: None)
    array_calls = run_steps(engine.adam_update, dtype, amsgrad, weight_decay)
    tolerance = dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-10, atol=1e-14)
    for got, want in zip(compiled, array_calls):
        assert got.dtype == dtype
        np.testing.assert_allclose(got, want, **tolerance)


def test_strided_or_mixed_arrays_take_the_array_call_path(monkeypatch):
    calls = []
    module = numpy_backend.compiled("optimizers")
    monkeypatch.setattr(module, "adam_update", lambda *args: calls.append(args))
    engine = numpy_backend.NumpyBackend()
    variable = np.ones((4, 6), "float32")
    strided_gradient = np.ones((6, 4), "float32").T
    engine.adam_update(variable, strided_gradient, np.zeros((4, 6), "float32"),
                       np.zeros((4, 6), "float32"), 0.1, 0.9, 0.999, 1e-7, 1)
    engine.adam_update(variable, np.ones((4, 6), "float64"), np.zeros((4, 6), "float32"),
                       np.zeros((4, 6), "float32"), 0.1, 0.9, 0.999, 1e-7, 1)
    assert calls == []
    assert np.all(variable < 1.0)                  # both steps still happened
    engine.adam_update(variable, np.ones((4, 6), "float32"), np.zeros((4, 6), "float32"),
                       np.zeros((4, 6), "float32"), 0.1, 0.9, 0.999, 1e-7, 1)
    assert len(calls) == 1

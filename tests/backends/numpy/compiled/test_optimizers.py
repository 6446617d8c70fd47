"""The NumPy engine's compiled Adam step (``backends/numpy/compiled/optimizers.py``, given to
the Adam optimizer through ``Backend.optimizer_kernel``) against the optimizer's array-call
rule it replaces: Adam, AMSGrad and AdamW, float32 and float64, several steps; arrays it
cannot take (strided, mixed dtypes) go the array-call way."""

import numpy as np
import pytest

import lamina
from lamina.backends import Variable, use_backend
from lamina.backends.numpy import engine as numpy_backend

pytest.importorskip("numba")
pytestmark = pytest.mark.skipif(numpy_backend.compiled("optimizers") is None,
                                reason="LAMINA_JIT=0 is set")

RNG = np.random.default_rng(9)


def run_steps(dtype, amsgrad, weight_decay, steps=4, shape=(37, 5)):
    optimizer = lamina.optimizers.Adam(0.01, 0.9, 0.999, 1e-7, amsgrad=amsgrad,
                                       weight_decay=weight_decay or None)
    variable = Variable(RNG.standard_normal(shape).astype(dtype))
    with use_backend("numpy"):
        for _ in range(steps):
            optimizer.apply([RNG.standard_normal(shape).astype(dtype)], [variable])
    return [variable.numpy()] + [slot.numpy() for slot in optimizer.variables[1:]]


def test_the_numpy_engine_offers_the_compiled_adam_for_float32_and_float64_only():
    engine = numpy_backend.NumpyBackend()
    module = numpy_backend.compiled("optimizers")
    assert engine.optimizer_kernel("adam", "float32") is module.adam_update
    assert engine.optimizer_kernel("adam", np.float64) is module.adam_update
    assert engine.optimizer_kernel("adam", "float16") is None
    assert engine.optimizer_kernel("sgd", "float32") is None


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("amsgrad,weight_decay", [(False, 0.0), (True, 0.0), (False, 0.004),
                                                  (True, 0.3)])
def test_compiled_adam_equals_array_calls(dtype, amsgrad, weight_decay, monkeypatch):
    state = RNG.bit_generator.state
    compiled = run_steps(dtype, amsgrad, weight_decay)
    RNG.bit_generator.state = state
    monkeypatch.setattr(numpy_backend.NumpyBackend, "optimizer_kernel",
                        lambda self, name, d: None)
    array_calls = run_steps(dtype, amsgrad, weight_decay)
    assert len(compiled) == (4 if amsgrad else 3)
    tolerance = dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-10, atol=1e-14)
    for got, want in zip(compiled, array_calls):
        assert got.dtype == dtype
        np.testing.assert_allclose(got, want, **tolerance)


def test_strided_or_mixed_arrays_take_the_array_call_path(monkeypatch):
    calls = []
    module = numpy_backend.compiled("optimizers")
    monkeypatch.setattr(module, "adam_update", lambda *args: calls.append(args))
    optimizer = lamina.optimizers.Adam(0.1)

    def step(gradient, slot_dtype="float32"):
        slots = tuple(Variable(np.zeros((4, 6), slot_dtype), trainable=False)
                      for _ in range(2))
        with use_backend("numpy"):
            optimizer.update_rule(variable, gradient, slots, 0.1, 1, False)

    variable = np.ones((4, 6), "float32")
    step(np.ones((6, 4), "float32").T)                     # strided gradient
    step(np.ones((4, 6), "float32"), slot_dtype="float64")  # slots of another dtype
    assert calls == []
    assert np.all(variable < 1.0)                  # both steps still happened
    step(np.ones((4, 6), "float32"))
    assert len(calls) == 1

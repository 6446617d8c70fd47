"""No float64 anywhere in a float32 training step of each benchmark workload's model.

Every op output and every gradient an op's backward returns is checked, by wrapping the
one ``record`` function all ops go through, plus the weights and optimizer slots after
the step.
"""

import sys

import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.backends import autodiff


def _models():
    yield "W1", [layers.Input((12,)), layers.Dense(8, activation="relu"),
                 layers.Dense(8, activation="relu"), layers.Dense(3)], (12,), "classes"
    yield "W2", [layers.Input((10, 10, 1)), layers.Conv2D(4, 3, activation="relu"),
                 layers.MaxPooling2D(2), layers.Conv2D(4, 3, activation="relu"),
                 layers.Flatten(), layers.Dense(6, activation="relu"), layers.Dense(3)], \
        (10, 10, 1), "classes"
    yield "W3", [layers.Input((5, 4)), layers.LSTM(6), layers.Dense(3)], (5, 4), "classes"
    yield "W4", [layers.Input((5,)), layers.Dense(4, activation="relu"), layers.Dense(1)], \
        (5,), "regression"


@pytest.fixture
def dtype_log(monkeypatch):
    """Wrap ``record`` everywhere it was imported; log every output and gradient dtype."""
    seen = []
    original = autodiff.record

    def checked_record(output, inputs, backward, name):
        seen.append((name, "forward", output.dtype))
        if backward is None:
            return original(output, inputs, backward, name)

        def checked_backward(upstream, needs):
            grads = backward(upstream, needs)
            for g in grads:
                if g is not None:
                    seen.append((name, "backward", g.dtype))
            return grads

        return original(output, inputs, checked_backward, name)

    for module_name, module in list(sys.modules.items()):
        if module_name.startswith("lamina") and getattr(module, "record", None) is original:
            monkeypatch.setattr(module, "record", checked_record)
    return seen


@pytest.mark.parametrize("name,stack,shape,task",
                         [pytest.param(*case, id=case[0]) for case in _models()])
def test_training_step_stays_float32(dtype_log, name, stack, shape, task):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16,) + shape).astype("float32")
    if task == "classes":
        y = rng.integers(0, 3, 16)
        loss = lamina.losses.SparseCategoricalCrossentropy(from_logits=True)
    else:
        y = rng.standard_normal((16, 1)).astype("float32")
        loss = "mse"
    model = lamina.Sequential(stack)
    model.compile(optimizer=lamina.optimizers.Adam(), loss=loss)
    model.fit(x, y, batch_size=8, epochs=1, verbose=0)

    float_dtypes = {str(dtype) for _, _, dtype in dtype_log if np.dtype(dtype).kind == "f"}
    offenders = sorted({(op, phase) for op, phase, dtype in dtype_log
                        if np.dtype(dtype) == np.float64})
    assert dtype_log, "no op was recorded"
    assert float_dtypes == {"float32"}, f"{name}: float64 appeared in {offenders}"
    for variable in model.weights + list(model.optimizer.variables):
        if np.dtype(variable.dtype).kind == "f":
            assert variable.dtype == np.float32, f"{name}: {variable.name} is {variable.dtype}"

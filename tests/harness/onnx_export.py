"""ONNX export checks: export a model, validate it with ``onnx.checker`` and compare
onnxruntime's predictions with ``model.predict`` (skips when onnx/onnxruntime are absent:
they are the ``[onnx]`` and ``[test]`` extras)."""

import numpy as np
import pytest


def run_onnx(model, inputs, tmp_path, filename="model.onnx"):
    """Export ``model`` to ONNX and run it with onnxruntime on ``inputs`` (an array or a
    list of arrays, one per model input); returns the list of outputs."""
    onnx = pytest.importorskip("onnx", reason="ONNX export needs the [onnx] extra")
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime is in the [test] extra")
    path = tmp_path / filename
    model.export(str(path), format="onnx", verbose=False)
    onnx.checker.check_model(onnx.load(str(path)))
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    feeds = inputs if isinstance(inputs, (list, tuple)) else [inputs]
    names = [i.name for i in session.get_inputs()]
    return session.run(None, dict(zip(names, feeds)))


def check_onnx(model, inputs, tmp_path, atol=1e-5):
    """``onnxruntime`` on the exported model predicts ``model.predict``'s numbers."""
    got = run_onnx(model, inputs, tmp_path)
    expected = model.predict(inputs, verbose=0)
    expected = expected if isinstance(expected, (list, tuple)) else [expected]
    assert len(got) == len(expected)
    for onnx_out, lamina_out in zip(got, expected):
        assert onnx_out.shape == np.shape(lamina_out)
        np.testing.assert_allclose(onnx_out, lamina_out, atol=atol, rtol=1e-5)
    return got


def randomize_weights(model, seed=0):
    """Give every weight random values (variances positive), so that zero biases or unit
    statistics cannot hide a wrong mapping."""
    rng = np.random.RandomState(seed)
    values = []
    for variable in model.weights:
        value = rng.uniform(-0.5, 0.5, variable.shape)
        if "variance" in variable.name:
            value = np.abs(value) + 0.5
        values.append(value.astype("float32"))
    model.set_weights(values)
    return model

"""ONNX export of whole models: Sequential, functional with several named inputs/outputs,
nested models, a dynamic batch, and clear errors for what cannot be exported."""

import sys

import numpy as np
import pytest

import lamina
from lamina import layers as L
from harness.onnx_export import check_onnx, randomize_weights, run_onnx

onnx = pytest.importorskip("onnx", reason="ONNX export needs the [onnx] extra")
pytest.importorskip("onnxruntime", reason="onnxruntime is in the [test] extra")

RNG = np.random.RandomState(2)


def _two_in_two_out():
    image, extra = lamina.Input((8, 8, 1), name="image"), lamina.Input((3,), name="extra")
    features = L.Flatten()(L.MaxPooling2D()(L.Conv2D(2, 3, activation="relu")(image)))
    joined = L.Concatenate()([features, L.Dense(4)(extra)])
    label = L.Dense(3, activation="softmax", name="label")(joined)
    score = L.Dense(1, name="score")(joined)
    return randomize_weights(lamina.Model([image, extra], [label, score]))


def test_functional_inputs_and_outputs_are_named_and_batch_is_dynamic(tmp_path):
    model = _two_in_two_out()
    path = tmp_path / "m.onnx"
    model.export(str(path), verbose=False)
    graph = onnx.load(str(path)).graph
    assert [i.name for i in graph.input] == ["image", "extra"]
    assert [o.name for o in graph.output] == ["label", "score"]
    assert graph.input[0].type.tensor_type.shape.dim[0].dim_param      # symbolic batch
    for batch in (1, 5):
        check_onnx(model, [RNG.randn(batch, 8, 8, 1).astype("float32"),
                           RNG.randn(batch, 3).astype("float32")], tmp_path)


def test_nested_and_shared_layers(tmp_path):
    inner_in = lamina.Input((4,))
    inner = lamina.Model(inner_in, L.Dense(3, activation="tanh")(inner_in), name="inner")
    shared = L.Dense(2)
    a, b = lamina.Input((4,)), lamina.Input((4,))
    out = L.Add()([shared(inner(a)), shared(inner(b))])
    model = randomize_weights(lamina.Model([a, b], out))
    check_onnx(model, [RNG.randn(3, 4).astype("float32"), RNG.randn(3, 4).astype("float32")],
               tmp_path)


def test_sequential_inside_sequential(tmp_path):
    block = lamina.Sequential([lamina.Input((5,)), L.Dense(4, activation="relu"),
                               L.BatchNormalization()])
    model = randomize_weights(lamina.Sequential([lamina.Input((5,)), block, L.Dense(1)]))
    check_onnx(model, RNG.randn(4, 5).astype("float32"), tmp_path)


def test_trained_model_round_trip(tmp_path):
    model = lamina.Sequential([lamina.Input((3,)), L.Dense(8, activation="relu"),
                               L.Dropout(0.3), L.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
    x = RNG.randn(64, 3).astype("float32")
    model.fit(x, x.sum(axis=1, keepdims=True), epochs=2, verbose=0)
    check_onnx(model, x, tmp_path)


@pytest.mark.parametrize("shape, make, match", [
    ((3,), lambda: L.Lambda(lambda t: t * 2, name="double"),
     "'double' \\(Lambda\\).*no ONNX converter"),
    ((3,), lambda: L.Embedding(5, 2, mask_zero=True, name="emb"), "'emb' .*mask_zero"),
    ((3,), lambda: L.Dense(2, activation=lambda t: t, name="d"), "'d' .*activation '<lambda>'"),
    ((3, 2), lambda: L.RNN(L.LSTMCell(2), name="r"), "'r' \\(RNN\\).*no ONNX converter"),
])
def test_unexportable_layer_is_named(shape, make, match, tmp_path):
    model = lamina.Sequential([lamina.Input(shape), make()])
    with pytest.raises(ValueError, match=match):
        model.export(str(tmp_path / "x.onnx"), verbose=False)


def test_subclassed_model_is_refused(tmp_path):
    class Net(lamina.Model):
        def __init__(self):
            super().__init__()
            self.dense = L.Dense(1)

        def call(self, inputs):
            return self.dense(inputs)

    with pytest.raises(ValueError, match="subclassed"):
        Net().export(str(tmp_path / "x.onnx"), verbose=False)


def test_missing_onnx_names_the_extra(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "onnx", None)
    model = lamina.Sequential([lamina.Input((2,)), L.Dense(1)])
    with pytest.raises(ImportError, match=r"lamina\[onnx\]"):
        model.export(str(tmp_path / "x.onnx"))


def test_verbose_prints_the_names(capsys, tmp_path):
    model = lamina.Sequential([lamina.Input((2,), name="features"), L.Dense(1, name="y")])
    model.export(str(tmp_path / "x.onnx"))
    assert "inputs: features; outputs: y" in capsys.readouterr().out
    assert run_onnx(model, np.ones((1, 2), "float32"), tmp_path)[0].shape == (1, 1)

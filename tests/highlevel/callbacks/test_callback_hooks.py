"""The hooks ``fit`` (with validation), ``evaluate`` and ``predict`` fire, in order, with
``logs`` always a dict, against the sequence Keras 3.15 fires for the same calls
(keras_hook_sequence.json, made by make_keras_hook_sequence.py): ``on_test_*`` during
``fit``'s validation, ``on_test_batch_end`` with the loss and metrics so far,
``on_predict_batch_end`` with ``{"outputs": ...}``."""

import json
from pathlib import Path

import numpy as np
import pytest

import lamina

KERAS = json.loads((Path(__file__).resolve().parent / "keras_hook_sequence.json").read_text())
_PLAIN = ("train_begin", "train_end", "test_begin", "test_end", "predict_begin",
          "predict_end")
_INDEXED = ("epoch_begin", "epoch_end", "train_batch_begin", "train_batch_end",
            "test_batch_begin", "test_batch_end", "predict_batch_begin", "predict_batch_end")


class Recorder(lamina.callbacks.Callback):
    """Records ``[hook, batch-or-epoch, sorted log keys, logs is a dict]`` as the Keras
    script does, plus the logs themselves."""

    def __init__(self):
        super().__init__()
        self.events = []
        self.logs = []

    def _record(self, hook, index, logs):
        keys = sorted(logs) if isinstance(logs, dict) else None
        self.events.append([hook, index, keys, isinstance(logs, dict)])
        self.logs.append((hook, logs))


def _plain(hook):
    return lambda self, logs=None: self._record(f"on_{hook}", None, logs)


def _indexed(hook):
    return lambda self, index, logs=None: self._record(f"on_{hook}", index, logs)


for _hook in _PLAIN:
    setattr(Recorder, f"on_{_hook}", _plain(_hook))
for _hook in _INDEXED:
    setattr(Recorder, f"on_{_hook}", _indexed(_hook))


@pytest.fixture
def model():
    model = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(2)])
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    model.set_weights([np.array(w, "float32") for w in KERAS["weights"]])
    return model


X = np.array(KERAS["x"], "float32")
Y = np.array(KERAS["y"], "float32")


def test_fit_with_validation_fires_keras_hooks(model):
    recorder = Recorder()
    model.fit(X, Y, batch_size=4, epochs=2, validation_data=(X[:6], Y[:6]),
              callbacks=[recorder], verbose=0)
    assert recorder.events == KERAS["fit"]


def test_evaluate_fires_keras_hooks_with_running_logs(model):
    recorder = Recorder()
    model.evaluate(X, Y, batch_size=4, callbacks=[recorder], verbose=0)
    assert recorder.events == KERAS["evaluate"]
    logs = [logs for hook, logs in recorder.logs
            if hook in ("on_test_batch_end", "on_test_end")]
    for got, expected in zip(logs, KERAS["test_batch_logs"]):
        assert sorted(got) == sorted(expected)
        for name, value in expected.items():
            np.testing.assert_allclose(got[name], value, rtol=1e-5)


def test_predict_fires_keras_hooks_with_the_outputs(model):
    recorder = Recorder()
    predictions = model.predict(X, batch_size=4, callbacks=[recorder], verbose=0)
    assert recorder.events == KERAS["predict"]
    outputs = [logs["outputs"] for hook, logs in recorder.logs
               if hook == "on_predict_batch_end"]
    assert [list(np.shape(o)) for o in outputs] == KERAS["predict_output_shapes"]
    np.testing.assert_array_equal(np.concatenate(outputs), predictions)


def test_a_callback_list_gives_every_hook_a_dict():
    recorder = Recorder()
    callbacks = lamina.callbacks.CallbackList([recorder])
    callbacks.on_train_batch_begin(0)
    callbacks.on_test_batch_end(0, None)
    callbacks.on_predict_batch_end(0)
    callbacks.on_epoch_begin(0)
    assert [logs for _, logs in recorder.logs] == [{}, {}, {}, {}]

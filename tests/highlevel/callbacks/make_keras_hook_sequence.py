"""Regenerates keras_hook_sequence.json: the hooks (and their logs' keys, and whether logs
is a dict) that Keras 3.15 (torch backend) fires for fit with validation, evaluate and
predict on a fixed tiny model. Run: KERAS_BACKEND=torch /work/kvenv/bin/python THIS_FILE"""

import json
import os

import keras
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


class Recorder(keras.callbacks.Callback):
    """Records ``[hook, batch-or-epoch, sorted log keys, logs is a dict]``."""

    def __init__(self):
        super().__init__()
        self.events = []

    def _record(self, hook, index, logs):
        keys = sorted(logs) if isinstance(logs, dict) else None
        self.events.append([hook, index, keys, isinstance(logs, dict)])


for _hook in ("train_begin", "train_end", "test_begin", "test_end", "predict_begin",
              "predict_end"):
    setattr(Recorder, f"on_{_hook}",
            (lambda h: lambda self, logs=None: self._record(f"on_{h}", None, logs))(_hook))
for _hook in ("epoch_begin", "epoch_end", "train_batch_begin", "train_batch_end",
              "test_batch_begin", "test_batch_end", "predict_batch_begin",
              "predict_batch_end"):
    setattr(Recorder, f"on_{_hook}",
            (lambda h: lambda self, i, logs=None: self._record(f"on_{h}", i, logs))(_hook))


def main():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(10, 3)).astype("float32")
    y = rng.normal(size=(10, 2)).astype("float32")
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    out = {}
    recorder = Recorder()
    model.fit(x, y, batch_size=4, epochs=2, validation_data=(x[:6], y[:6]),
              callbacks=[recorder], verbose=0)
    out["fit"] = recorder.events
    recorder = Recorder()
    model.evaluate(x, y, batch_size=4, callbacks=[recorder], verbose=0)
    out["evaluate"] = recorder.events

    class Outputs(keras.callbacks.Callback):
        def __init__(self):
            super().__init__()
            self.shapes = []

        def on_predict_batch_end(self, batch, logs=None):
            self.shapes.append(list(np.shape(logs["outputs"])))

    recorder, outputs = Recorder(), Outputs()
    model.predict(x, batch_size=4, callbacks=[recorder, outputs], verbose=0)
    out["predict"] = recorder.events
    out["predict_output_shapes"] = outputs.shapes

    class TestLogs(keras.callbacks.Callback):
        def __init__(self):
            super().__init__()
            self.logs = []

        def on_test_batch_end(self, batch, logs=None):
            self.logs.append({k: float(v) for k, v in logs.items()})

        def on_test_end(self, logs=None):
            self.logs.append({k: float(v) for k, v in logs.items()})

    test_logs = TestLogs()
    model.evaluate(x, y, batch_size=4, callbacks=[test_logs], verbose=0)
    out["test_batch_logs"] = test_logs.logs
    out["x"], out["y"] = x.tolist(), y.tolist()
    out["weights"] = [w.tolist() for w in model.get_weights()]
    with open(os.path.join(HERE, "keras_hook_sequence.json"), "w") as handle:
        json.dump(out, handle, indent=1)


if __name__ == "__main__":
    main()

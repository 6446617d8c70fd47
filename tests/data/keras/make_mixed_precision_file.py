"""Writes keras_mixed_float16.keras with real Keras 3 (run once; the file is committed):

    KERAS_BACKEND=torch /work/kvenv/bin/python tests/data/keras/make_mixed_precision_file.py

A Sequential model under the "mixed_float16" policy (float32 final Activation), compiled
with SGD (Keras wraps it in a LossScaleOptimizer) and trained 3 steps, and the numbers
the test compares against (predictions, loss scale state) in keras_mixed_float16.json."""

import json
import os

import keras
import numpy as np
from keras import layers

HERE = os.path.dirname(os.path.abspath(__file__))

keras.utils.set_random_seed(3)
keras.mixed_precision.set_global_policy("mixed_float16")
model = keras.Sequential([keras.Input((4,)), layers.Dense(3, activation="relu", name="d1"),
                          layers.Dense(2, name="d2"),
                          layers.Activation("linear", dtype="float32", name="out")])
model.compile(keras.optimizers.SGD(0.05), "mse")
rng = np.random.default_rng(1)
x = rng.normal(size=(12, 4)).astype("float32")
y = rng.normal(size=(12, 2)).astype("float32")
model.fit(x, y, batch_size=4, epochs=1, shuffle=False, verbose=0)
model.save(os.path.join(HERE, "keras_mixed_float16.keras"))
record = {"x": x[:3].tolist(), "predict": model.predict(x[:3], verbose=0).tolist(),
          "optimizer": type(model.optimizer).__name__,
          "dynamic_scale": float(model.optimizer.dynamic_scale.numpy()),
          "step_counter": int(model.optimizer.step_counter.numpy()),
          "iterations": int(model.optimizer.iterations.numpy()),
          "keras_version": keras.__version__}
with open(os.path.join(HERE, "keras_mixed_float16.json"), "w") as handle:
    json.dump(record, handle, indent=1)
print(record)

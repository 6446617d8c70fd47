"""Writes ``masked_loss.weights.h5`` and ``masked_loss_reference.json``: Keras 3.15's loss
and metrics for a masked sequence model (Embedding(mask_zero=True) -> LSTM(return_sequences)
-> Dense), where the padded timesteps must not count.

Run with real Keras in a throwaway venv (never a lamina dependency):
``KERAS_BACKEND=torch python tests/data/keras/make_masked_loss_reference.py``
"""

import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
X = np.array([[3, 5, 2, 0, 0], [1, 4, 0, 0, 0], [7, 2, 6, 9, 1]], dtype="int32")
Y = np.random.default_rng(0).integers(0, 3, size=(3, 5))


def build(keras_module):
    """The model, in Keras or in lamina (same code)."""
    inputs = keras_module.Input((None,), dtype="int32")
    hidden = keras_module.layers.Embedding(10, 4, mask_zero=True)(inputs)
    hidden = keras_module.layers.LSTM(3, return_sequences=True)(hidden)
    outputs = keras_module.layers.Dense(3, activation="softmax")(hidden)
    model = keras_module.Model(inputs, outputs)
    model.compile(loss="sparse_categorical_crossentropy", metrics=["accuracy"],
                  weighted_metrics=["accuracy"])
    return model


if __name__ == "__main__":
    import keras

    keras.utils.set_random_seed(1)
    model = build(keras)
    model.save_weights(os.path.join(HERE, "masked_loss.weights.h5"))
    result = model.evaluate(X, Y, verbose=0, return_dict=True)
    with open(os.path.join(HERE, "masked_loss_reference.json"), "w") as f:
        json.dump({"keras": keras.__version__, "x": X.tolist(), "y": Y.tolist(),
                   "evaluate": {k: float(v) for k, v in result.items()}}, f, indent=1)
    print(result)

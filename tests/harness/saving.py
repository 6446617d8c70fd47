"""What the checkpoint tests share: a small compiled classifier and its data, prediction
comparisons, and copies of the Keras-written reference files to tamper with."""

import json
import os
import shutil

import h5py
import numpy as np

import lamina
from lamina import layers

KERAS_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "keras")


def as_list(prediction):
    """A model's prediction as a list of arrays (one per output)."""
    return prediction if isinstance(prediction, list) else [prediction]


def assert_same_predictions(first, second, x):
    """``first`` and ``second`` predict bit-identical outputs for ``x``."""
    for a, b in zip(as_list(first.predict(x, verbose=0)), as_list(second.predict(x, verbose=0))):
        np.testing.assert_array_equal(a, b)


def mlp(seed=3, compiled=True, optimizer="adam"):
    """A seeded 6 -> 16 -> 3 classifier with Dropout, compiled for sparse labels."""
    lamina.utils.set_random_seed(seed)
    model = lamina.Sequential([layers.Input((6,)), layers.Dense(16, activation="relu"),
                               layers.Dropout(0.3), layers.Dense(3, activation="softmax")])
    if compiled:
        model.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy",
                      metrics=["accuracy"])
    return model


def data(n=96, seed=0):
    """``n`` seeded samples of 6 features and labels in 0..2."""
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, 6)).astype("float32"), rng.integers(0, 3, n)


def keras_copy(tmp_path, edit_config=None):
    """A copy of Keras' keras_mlp.h5 (no checksums) in ``tmp_path``, its layer 'hidden'
    config passed through ``edit_config`` first when given."""
    path = tmp_path / "k.h5"
    shutil.copy(os.path.join(KERAS_DATA, "keras_mlp.h5"), path)     # no checksums
    if edit_config is not None:
        with h5py.File(path, "r+") as handle:
            config = json.loads(handle.attrs["model_config"])
            edit_config(config["config"]["layers"][1]["config"])    # layer 'hidden'
            handle.attrs["model_config"] = json.dumps(config)
    return path


def saved_weight_paths(model, folder):
    """``model`` saved as ``folder/model.keras``: the archive's path and the names of every
    group and dataset of its ``model.weights.h5`` (``layers/dense/vars/0``, ...)."""
    import zipfile

    path = os.path.join(str(folder), "model.keras")
    model.save(path)
    with zipfile.ZipFile(path) as archive:
        archive.extract("model.weights.h5", str(folder))
    names = []
    with h5py.File(os.path.join(str(folder), "model.weights.h5"), "r") as handle:
        handle.visit(names.append)
    return path, names

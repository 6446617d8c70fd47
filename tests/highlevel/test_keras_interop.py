"""Keras interoperability, both directions, without Keras.

``tests/data/keras`` holds files written by real Keras 3 (``make_keras_files.py``, run by
hand with Keras installed elsewhere) for the models of ``zoo.py``, in its three formats
(``.h5``, ``.weights.h5``, ``.keras``): lamina must reproduce Keras' recorded predictions
from them to 1e-5. The other direction was checked by the same
script (Keras loaded lamina's files and reproduced lamina's predictions, recorded in
``lamina_to_keras.json``); here lamina re-saves the same models and the files' configs and
weight layouts must still be exactly the ones Keras accepted.
"""

import importlib.util
import json
import os
import sys

import numpy as np
import pytest

import lamina

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "keras")


def _load(name):
    spec = importlib.util.spec_from_file_location(f"keras_data_{name}",
                                                  os.path.join(DATA, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


zoo = _load("zoo")
sys.modules.setdefault("zoo", zoo)            # make_keras_files imports it by this name
make_keras_files = _load("make_keras_files")
RECORD = json.load(open(os.path.join(DATA, "lamina_to_keras.json")))
PREDICTIONS = np.load(os.path.join(DATA, "keras_predictions.npz"))


def keras_inputs(name):
    count = sum(1 for key in PREDICTIONS.files if key.startswith(f"{name}/x"))
    values = [PREDICTIONS[f"{name}/x{i}"] for i in range(count)]
    return values[0] if count == 1 else values


def keras_predictions(name):
    count = sum(1 for key in PREDICTIONS.files if key.startswith(f"{name}/pred"))
    return [PREDICTIONS[f"{name}/pred{i}"] for i in range(count)]


def assert_predicts_like_keras(model, name):
    got = model.predict(keras_inputs(name), verbose=0)
    got = got if isinstance(got, list) else [got]
    expected = keras_predictions(name)
    assert len(got) == len(expected)
    for value, reference in zip(got, expected):
        np.testing.assert_allclose(value, reference, rtol=1e-5, atol=1e-5)


def test_the_data_files_are_small():
    total = sum(os.path.getsize(os.path.join(DATA, f)) for f in os.listdir(DATA)
                if os.path.isfile(os.path.join(DATA, f)))
    assert total < 1_500_000   # reference data of every Keras comparison together


@pytest.mark.parametrize("name", zoo.NAMES)
def test_load_model_reproduces_keras_predictions(name):
    model = lamina.load_model(os.path.join(DATA, f"keras_{name}.h5"))
    assert model.name == name
    assert_predicts_like_keras(model, name)
    assert model.compiled and type(model.optimizer).__name__ == "Adam"
    assert model.optimizer.iterations == 1          # Keras trained one step before saving
    assert model.optimizer.learning_rate == pytest.approx(0.01)


@pytest.mark.parametrize("name", zoo.NAMES)
def test_load_model_of_a_keras_zip_reproduces_keras_predictions(name):
    model = lamina.saving.load_model(os.path.join(DATA, f"keras_{name}.keras"))
    assert model.name == name
    assert_predicts_like_keras(model, name)
    assert model.compiled and type(model.optimizer).__name__ == "Adam"
    assert model.optimizer.iterations == 1
    assert model.optimizer.learning_rate == pytest.approx(0.01)
    assert len(model.optimizer.variables) == 2 * len(model.trainable_weights) + 1


@pytest.mark.parametrize("name", zoo.NAMES)
@pytest.mark.parametrize("suffix", [".weights.h5", ".h5", ".keras"])
def test_load_weights_reproduces_keras_predictions(name, suffix):
    model = zoo.build(name, lamina)
    model.load_weights(os.path.join(DATA, f"keras_{name}{suffix}"))
    assert_predicts_like_keras(model, name)


@pytest.mark.parametrize("name", zoo.NAMES)
def test_lamina_files_keep_the_layout_keras_accepted(tmp_path, name):
    recorded = RECORD["models"][name]
    for key in ("max_abs_diff_load_model", "max_abs_diff_load_weights",
                "max_abs_diff_load_legacy_weights"):
        assert recorded[key] < 1e-5, f"Keras did not reproduce lamina's {name}: {key}"
    lamina.utils.set_random_seed(0)
    model = make_keras_files._prepare(zoo.build(name, lamina), name, lamina)
    model.save(tmp_path / "full.h5")
    model.save_weights(tmp_path / "w.weights.h5")
    model.save_weights(tmp_path / "legacy.h5")
    assert make_keras_files.h5_layout(tmp_path / "full.h5") == recorded["full_model_layout"]
    assert make_keras_files.h5_layout(tmp_path / "w.weights.h5") == recorded["weights_layout"]
    assert make_keras_files.h5_layout(tmp_path / "legacy.h5") == \
        recorded["legacy_weights_layout"]


@pytest.mark.parametrize("name", zoo.NAMES)
def test_lamina_keras_zip_keeps_the_layout_keras_accepted(tmp_path, name):
    recorded = RECORD["models"][name]["keras_zip"]
    assert recorded["max_abs_diff_load_model"] < 1e-5, f"Keras did not reproduce {name}"
    assert recorded["keras_optimizer"] == "Adam" and recorded["keras_optimizer_iterations"] == 1
    lamina.utils.set_random_seed(0)
    model = make_keras_files._prepare(zoo.build(name, lamina), name, lamina)
    model.save(tmp_path / "m.keras")
    assert make_keras_files.keras_zip_layout(tmp_path / "m.keras") == recorded["layout"]


def test_keras_and_lamina_agree_on_the_recorded_lamina_predictions():
    for name in zoo.NAMES:
        recorded = RECORD["models"][name]
        for lamina_value, keras_value in zip(recorded["lamina_predictions"],
                                             recorded["keras_load_model_predictions"]):
            np.testing.assert_allclose(lamina_value, keras_value, rtol=1e-5, atol=1e-5)

"""Keras interoperability, both directions, without Keras.

``tests/data/keras`` holds files written by real Keras 3 (``make_keras_files.py``, run by
hand with Keras installed elsewhere) for the models of ``zoo.py``, in its three formats
(``.h5``, ``.weights.h5``, ``.keras``): lamina must reproduce Keras' recorded predictions
from them to 1e-5. The other direction was checked by the same
script (Keras loaded lamina's files and reproduced lamina's predictions, recorded in
``lamina_to_keras.json``); here lamina re-saves the same models and the files' configs and
weight layouts must still be exactly the ones Keras accepted.

The ``test_new_layers_*`` section: files with the layers of issue 14 (Conv3D,
GroupNormalization, PReLU, 3-D pooling,
Conv3DTranspose, LeakyReLU, Softmax, ...), both ways.

``tests/data/keras/keras_layers3d.h5`` and ``.weights.h5`` were written by Keras 3.15
(``make_layer_references.py``); lamina must load them and reproduce Keras' predictions.
lamina's own files of the same model must name every weight as Keras' file does (Keras
3.15 loaded them and predicted identical numbers when the data was made: the record's
``lamina_to_keras``). Every new layer
also survives lamina's own ``.h5`` / ``.weights.h5`` round trip.
"""

import importlib.util
import json
import os
import sys

import h5py
import numpy as np
import pytest

import lamina
from lamina import layers

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "keras")


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


# ------------------------------------------------------------------ the new layers
references = _load("make_layer_references")
LAYER_ARRAYS = np.load(os.path.join(DATA, "layer_references.npz"))
LAYER_RECORD = json.loads(str(LAYER_ARRAYS["cases"]))


def test_new_layers_load_model_reproduces_keras_predictions():
    model = lamina.load_model(os.path.join(DATA, "keras_layers3d.h5"))
    assert [type(layer).__name__ for layer in model.layers] == [
        "Conv3D", "GroupNormalization", "PReLU", "MaxPooling3D", "Conv3DTranspose",
        "LeakyReLU", "GlobalAveragePooling3D", "Dense", "Softmax"]
    np.testing.assert_allclose(model.predict(LAYER_ARRAYS["model3d/x"], verbose=0),
                               LAYER_ARRAYS["model3d/pred"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("suffix", [".weights.h5", ".h5"])
def test_new_layers_load_weights_reproduces_keras_predictions(suffix):
    model = references.build_model3d(lamina)
    model.load_weights(os.path.join(DATA, f"keras_layers3d{suffix}"))
    np.testing.assert_allclose(model.predict(LAYER_ARRAYS["model3d/x"], verbose=0),
                               LAYER_ARRAYS["model3d/pred"], rtol=1e-5, atol=1e-6)


def _weight_names(path):
    with h5py.File(path, "r") as handle:
        group = handle["model_weights"]
        return {name.decode() if isinstance(name, bytes) else name:
                [w.decode() if isinstance(w, bytes) else w
                 for w in group[name].attrs["weight_names"]]
                for name in group.attrs["layer_names"]}


def _vars(path):
    found = []
    with h5py.File(path, "r") as handle:
        handle.visititems(lambda name, obj: found.append(
            (name, sorted(tuple(obj[k].shape) for k in obj)))
            if name.endswith("vars") and isinstance(obj, h5py.Group) and len(obj) else None)
    return sorted(found)


def test_new_layers_keras_read_lamina_files_when_the_data_was_made():
    assert LAYER_RECORD["keras_version"].startswith("3.")
    assert LAYER_RECORD["lamina_to_keras"]["max_abs_diff_load_model"] < 1e-6
    assert LAYER_RECORD["lamina_to_keras"]["max_abs_diff_load_weights"] < 1e-6


def test_new_layers_lamina_files_name_the_weights_as_keras_does(tmp_path):
    model = lamina.load_model(os.path.join(DATA, "keras_layers3d.h5"))
    model.save(tmp_path / "lamina.h5")
    model.save_weights(tmp_path / "lamina.weights.h5")
    assert _weight_names(tmp_path / "lamina.h5") == \
        _weight_names(os.path.join(DATA, "keras_layers3d.h5"))
    assert _vars(tmp_path / "lamina.weights.h5") == \
        _vars(os.path.join(DATA, "keras_layers3d.weights.h5"))


def _every_new_layer_model():
    inputs = lamina.Input((4, 6, 6, 2))
    x = layers.Conv3D(4, 3, padding="same", data_format="channels_first")(inputs)
    x = layers.GroupNormalization(2, axis=1)(x)
    x = layers.PReLU(shared_axes=[2, 3, 4])(x)
    x = layers.ZeroPadding3D(1, data_format="channels_first")(x)
    x = layers.Cropping3D(((1, 1), (0, 0), (1, 1)), data_format="channels_first")(x)
    x = layers.AvgPool3D(2, data_format="channels_first")(x)
    x = layers.UpSampling3D(2, data_format="channels_first")(x)
    x = layers.SpatialDropout3D(0.2, data_format="channels_first")(x)
    x = layers.Conv3DTranspose(2, 2, data_format="channels_first")(x)
    x = layers.MaxPooling3D(2, padding="same")(x)
    x = layers.GaussianDropout(0.1)(x)
    x = layers.AlphaDropout(0.1)(x)
    x = layers.ReLU(max_value=2.0, negative_slope=0.1)(x)
    x = layers.ELU(0.5)(x)
    pooled = layers.GlobalMaxPool3D()(x)
    averaged = layers.GlobalAvgPool3D(data_format="channels_first")(x)
    merged = layers.concatenate([layers.UnitNormalization()(pooled), averaged])
    sequence = layers.Reshape((3, -1))(layers.Dense(6)(merged))
    sequence = layers.SeparableConv1D(2, 2, padding="same")(sequence)
    sequence = layers.DepthwiseConv1D(2)(layers.Conv1DTranspose(3, 2)(sequence))
    outputs = layers.Softmax()(layers.LeakyReLU()(layers.Flatten()(sequence)))
    return lamina.Model(inputs, outputs)


@pytest.mark.parametrize("suffix", [".h5", ".weights.h5"])
def test_every_new_layer_round_trips_through_lamina_files(tmp_path, suffix):
    lamina.utils.set_random_seed(3)
    model = _every_new_layer_model()
    model.set_weights([np.random.default_rng(i).uniform(-0.5, 0.5, w.shape).astype("float32")
                       for i, w in enumerate(model.get_weights())])
    x = np.random.default_rng(0).uniform(-1, 1, (2, 4, 6, 6, 2)).astype("float32")
    expected = model.predict(x, verbose=0)
    path = str(tmp_path / f"every{suffix}")
    if suffix == ".h5":
        model.save(path)
        loaded = lamina.load_model(path)
        assert loaded.get_config() == model.get_config()
    else:
        model.save_weights(path)
        loaded = _every_new_layer_model()
        loaded.load_weights(path)
    np.testing.assert_allclose(loaded.predict(x, verbose=0), expected, rtol=1e-6, atol=1e-6)

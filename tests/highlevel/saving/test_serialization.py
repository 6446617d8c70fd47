"""Functional configs with Keras 3's operation nodes (``x + y`` -> ``keras.src.ops.numpy``
``Add``, ``x[:, 1:]`` -> ``GetItem``, ...) in both directions. The files and numbers come
from Keras 3.15.1: ``tests/data/keras/make_keras_operations.py``."""

import importlib.util
import json
import os
import zipfile

import numpy as np
import pytest

import lamina
from lamina.highlevel.saving.errors import CheckpointError

HERE = os.path.join(os.path.dirname(__file__), "..", "..", "data", "keras")
KERAS_FILE = os.path.join(HERE, "keras_operations.keras")
REFERENCE = np.load(os.path.join(HERE, "keras_operations.npz"))
with open(os.path.join(HERE, "lamina_operations_to_keras.json")) as _file:
    LAMINA_TO_KERAS = json.load(_file)


def build():
    """The model of make_keras_operations.py, built in lamina with Keras' default names."""
    lamina.utils.clear_session()
    return _maker().build(lamina)


def _maker():
    spec = importlib.util.spec_from_file_location(
        "make_keras_operations", os.path.join(HERE, "make_keras_operations.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _check_predictions(model):
    x = [REFERENCE["x0"], REFERENCE["x1"]]
    got = model.predict(x, verbose=0)
    for index, value in enumerate(got):
        expected = REFERENCE[f"pred{index}"]
        assert value.dtype == expected.dtype
        np.testing.assert_allclose(value, expected, rtol=1e-6, atol=1e-6)


def test_keras_file_with_operations_loads_and_predicts_as_keras():
    model = lamina.saving.load_model(KERAS_FILE)
    _check_predictions(model)
    assert [layer.name for layer in model.layers] == ["a", "d1", "b", "d2"]
    assert [type(op).__name__ for op in model.operations].count("TensorOperation") == 16


def test_lamina_writes_the_operation_entries_keras_read():
    model = build()
    _check_predictions(model)
    assert LAMINA_TO_KERAS["same_as_keras_model"] == 0.0   # Keras read lamina's file
    written = model.get_config()["layers"]
    accepted = LAMINA_TO_KERAS["config"]["layers"]
    assert len(written) == len(accepted)
    for ours, theirs in zip(written, accepted):
        if theirs["module"] == "keras.src.ops.numpy":
            assert json.loads(json.dumps(ours)) == theirs


def test_saved_file_round_trips(tmp_path):
    model = build()
    model.save(tmp_path / "ops.keras")
    _check_predictions(lamina.saving.load_model(tmp_path / "ops.keras"))
    with zipfile.ZipFile(tmp_path / "ops.keras") as archive:
        config = json.loads(archive.read("config.json"))
    assert [e["class_name"] for e in config["config"]["layers"]][3:6] == [
        "Add", "Multiply", "GetItem"]


def _rewritten(tmp_path, change):
    with zipfile.ZipFile(KERAS_FILE) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    config = json.loads(members["config.json"])
    change(config["config"]["layers"])
    members["config.json"] = json.dumps(config).encode()
    path = tmp_path / "changed.keras"
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def test_an_operation_outside_the_allow_list_is_refused(tmp_path):
    def rename(entries):
        entries[3]["class_name"] = entries[3]["registered_name"] = "Eval"

    with pytest.raises(CheckpointError, match="'Eval'"):
        lamina.saving.load_model(_rewritten(tmp_path, rename))


def test_the_module_tells_an_operation_from_the_merge_layer(tmp_path):
    # "Add" from keras.layers is the merge layer: called on (tensor, tensor) it sums too,
    # but it is looked up as a layer (not the operation)
    def as_layer(entries):
        entries[3]["module"] = "keras.layers"
        entries[3]["registered_name"] = None
        entries[3]["inbound_nodes"][0]["args"] = [entries[3]["inbound_nodes"][0]["args"]]

    model = lamina.saving.load_model(_rewritten(tmp_path, as_layer))
    assert type(model.get_layer("add")).__name__ == "Add"
    _check_predictions(model)

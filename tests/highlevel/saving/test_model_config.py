"""Rebuilding a model from a stored config trusts nothing in it: a config cannot build far
more weights than the file stores, layer dtypes must be real numbers that do not truncate
the stored weights, an unknown class names the layer and ``custom_objects``, and stored
code (a Lambda's bytecode) is never run."""

import json
import os
import shutil

import h5py
import pytest

import lamina
from harness.saving import KERAS_DATA, keras_copy
from lamina.highlevel.saving import (errors as checkpoint_errors, h5io as file_integrity,
                                     model_file as saving)
from lamina.highlevel.saving.errors import UnknownClassError


def test_a_config_cannot_build_far_more_weights_than_the_file_stores(tmp_path):
    path = keras_copy(tmp_path, lambda config: config.update(units=60_000_000))
    with pytest.raises(checkpoint_errors.ConfigError, match="'hidden'.*kernel") as error:
        lamina.load_model(path)                  # refused before the 1.9 GB kernel exists
    assert "k.h5" in str(error.value) and "weight values" in str(error.value)


@pytest.mark.parametrize("dtype", ["complex64", "object"])
def test_layer_dtypes_that_are_not_real_numbers_are_refused(tmp_path, dtype):
    path = keras_copy(tmp_path, lambda config: config.update(dtype=dtype))
    with pytest.raises(checkpoint_errors.ConfigError, match=f"'hidden'.*{dtype}"):
        lamina.load_model(path)


def test_an_integer_layer_dtype_does_not_truncate_stored_weights(tmp_path):
    path = keras_copy(tmp_path, lambda config: config.update(dtype="int32"))
    with pytest.raises(checkpoint_errors.WeightMismatchError,
                       match="'hidden'.*int32.*truncate"):
        lamina.load_model(path)


def test_unknown_layer_class_names_the_layer_and_custom_objects(tmp_path):
    path = tmp_path / "k.h5"
    shutil.copy(os.path.join(KERAS_DATA, "keras_mlp.h5"), path)     # no checksums
    with h5py.File(path, "r+") as handle:
        config = json.loads(handle.attrs["model_config"])
        config["config"]["layers"][1]["class_name"] = "FancyDense"
        handle.attrs["model_config"] = json.dumps(config)
    with pytest.raises(UnknownClassError) as error:
        lamina.load_model(path)
    message = str(error.value)
    assert "FancyDense" in message and "hidden" in message and "custom_objects" in message
    assert "k.h5" in message


def test_stored_code_is_never_run(tmp_path):
    marker = tmp_path / "ran"
    path = tmp_path / "k.h5"
    shutil.copy(os.path.join(KERAS_DATA, "keras_mlp.h5"), path)
    with h5py.File(path, "r+") as handle:
        config = json.loads(handle.attrs["model_config"])
        code = f"open({str(marker)!r}, 'w')"
        config["config"]["layers"].insert(2, {"class_name": "Lambda", "config": {
            "name": "evil", "function": [code, None, None], "function_type": "lambda",
            "arguments": {}}})
        handle.attrs["model_config"] = json.dumps(config)
    with pytest.raises(UnknownClassError, match="never runs code"):
        lamina.load_model(path)
    assert not marker.exists()
    sources = "".join(open(module.__file__).read() for module in (
        saving, file_integrity, checkpoint_errors, lamina.highlevel.saving.weights_file,
        lamina.highlevel.saving.keras_format, lamina.highlevel.saving.model_config,
        lamina.highlevel.saving.optimizer_state))
    for forbidden in ("pickle.load", "eval(", "exec(", "marshal", "import yaml"):
        assert forbidden not in sources

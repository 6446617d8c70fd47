"""keras.utils' small helpers: clear_session, get_source_inputs, is_keras_tensor, the
x/y/sample_weight packing, standardize_dtype (expected values from Keras 3.15)."""

import numpy as np
import pytest

import lamina
from lamina import layers, utils
from lamina.highlevel.utils import keras_tensors


def test_clear_session_resets_default_names():
    utils.clear_session()
    first = layers.Dense(2)
    assert (first.name, layers.Dense(2).name) == ("dense", "dense_1")
    utils.clear_session()
    assert layers.Dense(2).name == "dense"


def test_get_source_inputs_and_is_keras_tensor():
    a, b = lamina.Input((3,)), lamina.Input((2,))
    c = layers.Concatenate()([layers.Dense(2)(a), b])
    assert utils.get_source_inputs(c) == [a, b]          # Keras 3.15: [a, b]
    assert utils.get_source_inputs(a) == [a]
    assert utils.is_keras_tensor(c) and not utils.is_keras_tensor(np.ones(2))
    with pytest.raises(ValueError, match="symbolic tensor"):
        utils.get_source_inputs(np.ones(2))


def test_pack_and_unpack_x_y_sample_weight():
    x, y, w = np.ones(2), np.zeros(2), np.full(2, 0.5)
    assert utils.pack_x_y_sample_weight(x) is x
    assert utils.pack_x_y_sample_weight((1, 2)) == ((1, 2),)     # Keras: ((1, 2),)
    assert utils.pack_x_y_sample_weight(x, y)[1] is y
    assert len(utils.pack_x_y_sample_weight(x, y, w)) == 3
    assert utils.unpack_x_y_sample_weight((1, 2)) == (1, 2, None)   # Keras: (1, 2, None)
    assert utils.unpack_x_y_sample_weight(x)[0] is x
    with pytest.raises(ValueError, match="4 elements"):
        utils.unpack_x_y_sample_weight((1, 2, 3, 4))


def test_standardize_dtype():
    assert utils.standardize_dtype(np.float32) == "float32"
    assert utils.standardize_dtype("string") == "string"
    assert utils.standardize_dtype(np.dtype("int32")) == "int32"
    assert utils.standardize_dtype(None) == lamina.config.floatx()
    with pytest.raises(ValueError, match="Invalid dtype"):
        utils.standardize_dtype("not-a-dtype")


def test_saving_helpers_are_reexported():
    assert utils.register_keras_serializable is lamina.saving.register_keras_serializable
    assert utils.serialize_keras_object is lamina.saving.serialize_keras_object
    assert utils.CustomObjectScope is lamina.saving.CustomObjectScope


@pytest.mark.parametrize("dtype, is_float, is_int", [
    # keras.backend.is_float_dtype / is_int_dtype in Keras 3.15.1
    ("float16", True, False), ("float64", True, False), ("int8", False, True),
    ("uint32", False, True), ("int64", False, True), ("bool", False, False),
    (np.float32, True, False), (None, True, False)])
def test_is_float_dtype_and_is_int_dtype_as_keras(dtype, is_float, is_int):
    assert keras_tensors.is_float_dtype(dtype) is is_float
    assert keras_tensors.is_int_dtype(dtype) is is_int

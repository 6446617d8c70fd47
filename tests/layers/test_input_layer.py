"""Input and InputLayer (``layers/input_layer.py``): symbolic inputs with a batch axis and a
dtype, configs (also Keras 2's ``batch_input_shape``), integer inputs in a model, errors."""

import numpy as np
import pytest

import lamina
from lamina import layers, ops


def test_input_is_symbolic_with_batch_axis_and_dtype():
    x = lamina.Input((4, 3), name="pixels")
    assert x.shape == (None, 4, 3) and x.dtype == "float32"
    assert isinstance(x.node.layer, layers.InputLayer) and x.node.layer.name == "pixels"
    ids = lamina.Input((7,), dtype="int32")
    assert ids.dtype == "int32"
    fixed = lamina.Input((2,), batch_size=8)
    assert fixed.shape == (8, 2)
    assert lamina.Input(batch_shape=(None, 5)).shape == (None, 5)
    assert lamina.Input(6).shape == (None, 6)


def test_input_layer_config_round_trip_and_errors():
    layer = layers.InputLayer(shape=(3, 2), name="in_probe")
    config = layer.get_config()
    assert config["batch_shape"] == [None, 3, 2] and config["name"] == "in_probe"
    clone = layers.InputLayer.from_config(config)
    assert clone.batch_shape == (None, 3, 2) and clone.weights == []
    keras2 = layers.InputLayer.from_config({"batch_input_shape": [None, 9], "dtype": "float32",
                                            "name": "old_input"})
    assert keras2.batch_shape == (None, 9)
    with pytest.raises(ValueError, match="needs shape"):
        layers.InputLayer()
    with pytest.raises(ValueError, match="positive sizes"):
        lamina.Input((0, 3))


def test_int_input_keeps_integer_dtype_in_model():
    inputs = lamina.Input((3,), dtype="int32")
    outputs = layers.Lambda(lambda t: ops.cast(t, "float32") * 2.0)(inputs)
    model = lamina.Model(inputs, outputs)
    np.testing.assert_array_equal(model.predict(np.array([[1, 2, 3]]), verbose=0),
                                  [[2.0, 4.0, 6.0]])

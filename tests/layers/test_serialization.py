"""``lamina.layers.serialize`` / ``deserialize`` and Keras 3's object form of configs.

Keras 3.15 reference (``KERAS_BACKEND=torch``)::

    d = keras.layers.serialize(keras.layers.Dense(3, name="d"))
    {k: v for k, v in d.items() if k != "config"}
    # {'module': 'keras.layers', 'class_name': 'Dense', 'registered_name': None}
    d["config"]["kernel_initializer"]
    # {'module': 'keras.initializers', 'class_name': 'GlorotUniform', 'config': {...},
    #  'registered_name': None}
"""

import json

import pytest

import lamina
from lamina import layers
from lamina.layers import serialization


def test_serialize_writes_keras_3_entries():
    entry = layers.serialize(layers.Dense(3, name="d", kernel_regularizer="l2"))
    assert {k: entry[k] for k in ("module", "class_name", "registered_name")} == {
        "module": "keras.layers", "class_name": "Dense", "registered_name": None}
    config = entry["config"]
    assert config["kernel_initializer"]["module"] == "keras.initializers"
    assert config["kernel_initializer"]["registered_name"] is None
    assert config["kernel_regularizer"]["module"] == "keras.regularizers"
    assert "build_config" not in entry                      # not built yet


def test_nested_layers_and_custom_classes():
    class Custom(layers.Dense):
        pass

    wrapped = layers.serialize(layers.Bidirectional(layers.LSTM(2)))
    assert wrapped["config"]["layer"]["module"] == "keras.layers"
    custom = layers.serialize(Custom(2))
    assert custom["module"] == Custom.__module__ and custom["registered_name"] == "Custom"
    with pytest.raises(ValueError, match="unknown layer 'Custom'"):
        layers.deserialize(custom)
    assert type(layers.deserialize(custom, custom_objects={"Custom": Custom})) is Custom


def test_round_trip_through_json_keeps_config_and_builds():
    layer = layers.Conv2D(4, 3, padding="same", name="conv")
    layer(lamina.Input((8, 8, 2)))
    entry = json.loads(json.dumps(layers.serialize(layer)))
    assert entry["build_config"] == {"input_shape": [None, 8, 8, 2]}
    back = layers.deserialize(entry)
    assert back.get_config() == layer.get_config()
    assert back.built and back.kernel.shape == (3, 3, 2, 4)
    legacy = layers.deserialize({"class_name": "Dense", "config": {"units": 2}})
    assert legacy.units == 2 and not legacy.built


def test_to_keras3_leaves_tensor_references_and_plain_values():
    value = {"args": [{"class_name": "__keras_tensor__", "config": {"shape": [None, 2]}}],
             "n": 3, "name": "x"}
    assert serialization.to_keras3(value, None) == value
    assert serialization.to_keras3([1.5, None, "relu"]) == [1.5, None, "relu"]
    with pytest.raises(ValueError, match="class_name"):
        layers.deserialize(["Dense"])

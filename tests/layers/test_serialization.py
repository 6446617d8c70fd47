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


# Objects a custom layer's get_config() returns as they are (a sublayer, a regularizer) are
# entries of their own, as Keras' serialize_keras_object writes them (Keras 3.15, same code).
@lamina.saving.register_keras_serializable(package="NestedTest", name="Scaled")
class _ScaledDense(lamina.layers.Layer):
    def __init__(self, units, *, inner=None, kernel_regularizer=None, **kwargs):
        super().__init__(**kwargs)
        self.units, self.inner, self.kernel_regularizer = units, inner, kernel_regularizer

    def get_config(self):
        config = super().get_config()
        config.update({"units": self.units, "inner": self.inner,
                       "kernel_regularizer": self.kernel_regularizer})
        return config


@lamina.saving.register_keras_serializable(package="NestedTest")
class _Holder(lamina.layers.Layer):
    def __init__(self, first_layer, **kwargs):
        super().__init__(**kwargs)
        self.first_layer = first_layer

    def get_config(self):
        return {**super().get_config(), "first_layer": self.first_layer}

    @classmethod
    def from_config(cls, config):
        config["first_layer"] = lamina.layers.deserialize(config["first_layer"])
        return cls(**config)

    def call(self, inputs):
        return self.first_layer(inputs)


def test_nested_layer_and_regularizer_become_entries():
    layer = _ScaledDense(3, inner=_ScaledDense(2),
                         kernel_regularizer=lamina.regularizers.L1L2(l1=1e-5, l2=1e-4))
    entry = lamina.layers.serialize(layer)
    assert entry["registered_name"] == "NestedTest>Scaled"
    inner = entry["config"]["inner"]
    # Keras 3.15: {'module': None, 'class_name': '_ScaledDense', 'config': {...},
    #              'registered_name': 'NestedTest>Scaled'}
    assert inner["class_name"] == "_ScaledDense"
    assert inner["registered_name"] == "NestedTest>Scaled"
    assert inner["config"]["units"] == 2
    assert entry["config"]["kernel_regularizer"] == {
        "module": "keras.regularizers", "class_name": "L1L2",
        "config": {"l1": 1e-05, "l2": 0.0001}, "registered_name": None}
    rebuilt = lamina.layers.deserialize(entry)
    assert isinstance(rebuilt, _ScaledDense) and rebuilt.units == 3


def test_model_with_a_layer_holding_a_layer_rebuilds_from_its_config():
    inputs = lamina.Input((4,))
    outputs = _Holder(first_layer=lamina.layers.Dense(2))(inputs)
    model = lamina.Model(inputs, outputs)
    new_model = lamina.Model.from_config(model.get_config())
    holder = new_model.layers[-1]
    assert isinstance(holder, _Holder) and holder.first_layer.units == 2
    assert new_model.output_shape == (None, 2)

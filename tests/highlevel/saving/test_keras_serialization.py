"""``serialize_keras_object`` / ``deserialize_keras_object``, ``model.to_json()`` /
``lamina.models.model_from_json``: Keras 3's schema, and round trips.

Keras 3.15 reference (``KERAS_BACKEND=torch``)::

    keras.saving.serialize_keras_object(keras.initializers.HeNormal(seed=1))
    # {'module': 'keras.initializers', 'class_name': 'HeNormal',
    #  'config': {'seed': 1, ...}, 'registered_name': None}
    keras.saving.serialize_keras_object(keras.regularizers.L2(0.5))
    # {'module': 'keras.regularizers', 'class_name': 'L2', 'config': {'l2': 0.5},
    #  'registered_name': None}
    keras.saving.serialize_keras_object(keras.losses.MeanSquaredError())
    # {'module': 'keras.losses', 'class_name': 'MeanSquaredError',
    #  'config': {'name': 'mean_squared_error', 'reduction': 'sum_over_batch_size'},
    #  'registered_name': None}
    keras.saving.serialize_keras_object(keras.activations.relu)
    # {'module': 'builtins', 'class_name': 'function', 'config': 'relu',
    #  'registered_name': 'function'}
    keras.saving.serialize_keras_object([1, "a", None])     # [1, 'a', None]
"""

import json

import numpy as np
import pytest

import lamina
from lamina.saving import deserialize_keras_object, serialize_keras_object


def keys(entry):
    return {key: entry[key] for key in ("module", "class_name", "registered_name")}


def test_objects_serialize_in_keras_3_form():
    he = serialize_keras_object(lamina.initializers.HeNormal(seed=1))
    assert keys(he) == {"module": "keras.initializers", "class_name": "HeNormal",
                        "registered_name": None}
    assert he["config"]["seed"] == 1
    assert serialize_keras_object(lamina.regularizers.L2(0.5)) == {
        "module": "keras.regularizers", "class_name": "L2", "config": {"l2": 0.5},
        "registered_name": None}
    assert serialize_keras_object(lamina.losses.MeanSquaredError()) == {
        "module": "keras.losses", "class_name": "MeanSquaredError",
        "config": {"name": "mean_squared_error", "reduction": "sum_over_batch_size"},
        "registered_name": None}
    assert serialize_keras_object(lamina.activations.relu) == {
        "module": "builtins", "class_name": "function", "config": "relu",
        "registered_name": "function"}
    assert serialize_keras_object([1, "a", None, (2.5,)]) == [1, "a", None, [2.5]]
    assert serialize_keras_object(np.array([1, 2], dtype="int32")) == {
        "class_name": "__numpy__", "config": {"value": [1, 2], "dtype": "int32"}}
    adam = serialize_keras_object(lamina.optimizers.Adam(learning_rate=0.5))
    assert keys(adam) == {"module": "keras.optimizers", "class_name": "Adam",
                          "registered_name": None}
    with pytest.raises(TypeError, match="get_config"):
        serialize_keras_object(object())


def test_round_trips():
    for obj in (lamina.initializers.HeNormal(seed=3), lamina.regularizers.L2(0.25),
                lamina.losses.MeanSquaredError(), lamina.optimizers.Adam(learning_rate=0.5),
                lamina.metrics.MeanSquaredError()):
        config = serialize_keras_object(obj)
        back = deserialize_keras_object(json.loads(json.dumps(config)))
        assert type(back) is type(obj) and back.get_config() == obj.get_config()
    assert deserialize_keras_object(serialize_keras_object(lamina.activations.relu)) is \
        lamina.activations.relu
    array = deserialize_keras_object({"class_name": "__numpy__",
                                      "config": {"value": [1.5], "dtype": "float32"}})
    assert array.dtype == np.float32 and array.tolist() == [1.5]
    assert deserialize_keras_object({"a": [1, None]}) == {"a": [1, None]}


def test_the_module_is_never_imported():
    entry = {"module": "os.path", "class_name": "Dense", "config": {"units": 2},
             "registered_name": None}
    assert type(deserialize_keras_object(entry)).__name__ == "Dense"
    with pytest.raises(ValueError, match="'system'"):
        deserialize_keras_object({"module": "os", "class_name": "system", "config": {},
                                  "registered_name": None})


def test_lambdas_carrying_code_are_refused_in_both_modes():
    code = {"class_name": "__lambda__", "config": {"value": ["4wAAAA", None, None]}}
    with pytest.raises(ValueError, match="safe_mode"):
        deserialize_keras_object(code)
    with pytest.raises(ValueError, match="never runs code"):
        deserialize_keras_object(code, safe_mode=False)


def test_a_layer_deserializes_and_builds_from_its_build_config():
    layer = lamina.layers.Dense(3, name="d")
    layer(lamina.Input((4,)))
    config = serialize_keras_object(layer)
    assert config["build_config"] == {"input_shape": [None, 4]}
    back = deserialize_keras_object(config)
    assert back.built and back.kernel.shape == (4, 3) and back.name == "d"


def _model():
    inputs = lamina.Input((4,), name="x")
    outputs = lamina.layers.Dense(2, activation="softmax", name="out")(
        lamina.layers.Dense(5, activation="relu", name="hidden")(inputs))
    model = lamina.Model(inputs, outputs, name="json_model")
    model.compile(optimizer=lamina.optimizers.Adam(learning_rate=0.02),
                  loss="categorical_crossentropy", metrics=["accuracy"])
    return model


def test_to_json_and_model_from_json():
    model = _model()
    document = json.loads(model.to_json())
    assert keys(document) == {"module": "keras.src.models.functional",
                              "class_name": "Functional", "registered_name": "Functional"}
    assert document["compile_config"]["optimizer"]["class_name"] == "Adam"
    assert document["compile_config"]["metrics"] == ["accuracy"]
    assert [keys(layer)["module"] for layer in document["config"]["layers"]] == \
        ["keras.layers"] * 3
    rebuilt = lamina.models.model_from_json(model.to_json())
    assert [layer.name for layer in rebuilt.layers] == ["x", "hidden", "out"]
    assert rebuilt.compiled and rebuilt.optimizer.learning_rate == pytest.approx(0.02)
    rebuilt.set_weights(model.get_weights())
    x = np.random.default_rng(0).normal(size=(3, 4)).astype("float32")
    np.testing.assert_array_equal(rebuilt.predict(x, verbose=0), model.predict(x, verbose=0))
    assert json.loads(model.to_json(indent=2)) == document

"""Registered names match exactly, as Keras 3's ``get_registered_object``: a class
registered as ``"package>Name"`` is found under that name, and a bare ``"Name"`` finds it
only through ``custom_objects``. (Before, a bare class name resolved to a registered
``"package>Name"``, so a same-named class of another test resolved to it.)

Keras 3.15 reference (``KERAS_BACKEND=torch``)::

    @keras.saving.register_keras_serializable(package="reg_test")
    class RegisteredScaledDense(keras.layers.Dense): pass
    keras.saving.get_registered_object("RegisteredScaledDense")       # None
    cfg = keras.saving.serialize_keras_object(RegisteredScaledDense(2))
    cfg["registered_name"]                                            # 'reg_test>RegisteredScaledDense'
    keras.saving.deserialize_keras_object(dict(cfg, registered_name=None))
    # TypeError: Could not locate class 'RegisteredScaledDense'
    keras.saving.deserialize_keras_object(cfg)                       # RegisteredScaledDense
    # functions keep Keras <= 3.6's bare-name fallback:
    keras.saving.deserialize_keras_object({"module": "builtins", "class_name": "function",
        "config": "triple", "registered_name": "function"})          # reg_test>triple
"""

import pytest

import lamina
from lamina.layers import Dense


@lamina.saving.register_keras_serializable(package="names_test")
class NamedDense(Dense):
    """Registered as ``names_test>NamedDense``."""


@lamina.saving.register_keras_serializable(package="names_test", name="quadruple")
def quadruple(x):
    return x * 4


def test_a_bare_name_does_not_find_a_package_registration():
    assert lamina.saving.get_registered_object("NamedDense") is None
    assert lamina.saving.get_registered_object("names_test>NamedDense") is NamedDense
    with pytest.raises(ValueError, match="unknown layer 'NamedDense'"):
        lamina.layers.get("NamedDense")
    assert lamina.layers.get("names_test>NamedDense") is NamedDense


def test_custom_objects_resolve_the_bare_name():
    class NamedDenseElsewhere(Dense):
        pass

    found = lamina.saving.get_registered_object(
        "NamedDense", custom_objects={"NamedDense": NamedDenseElsewhere})
    assert found is NamedDenseElsewhere
    assert lamina.layers.get("NamedDense", custom_objects={"NamedDense": NamedDenseElsewhere}) \
        is NamedDenseElsewhere
    with lamina.saving.custom_object_scope({"NamedDense": NamedDenseElsewhere}):
        assert lamina.layers.get("NamedDense") is NamedDenseElsewhere


def test_deserialize_uses_the_registered_name_exactly():
    config = lamina.saving.serialize_keras_object(NamedDense(2))
    assert config["registered_name"] == "names_test>NamedDense"
    assert type(lamina.saving.deserialize_keras_object(config)) is NamedDense
    with pytest.raises((TypeError, ValueError), match="NamedDense"):
        lamina.saving.deserialize_keras_object(dict(config, registered_name=None))


def test_a_function_saved_under_its_bare_name_still_loads():
    config = {"module": "builtins", "class_name": "function", "config": "quadruple",
              "registered_name": "function"}
    assert lamina.saving.deserialize_keras_object(config) is quadruple


def test_files_name_the_registered_class_as_keras_does(tmp_path):
    """Keras 3.15's ``.h5`` writes ``"class_name": "reg_test>RSD"`` for a registered
    layer; its ``.keras`` writes ``class_name`` ``"RSD"`` and ``registered_name``
    ``"reg_test>RSD"``. Both load back without custom_objects."""
    import json
    import zipfile

    import h5py
    import numpy as np

    model = lamina.Sequential([lamina.Input((3,)), NamedDense(2, name="named")])
    model.save(tmp_path / "m.h5")
    model.save(tmp_path / "m.keras")
    with h5py.File(tmp_path / "m.h5") as handle:
        entry = json.loads(handle.attrs["model_config"])["config"]["layers"][-1]
    assert entry["class_name"] == "names_test>NamedDense"
    with zipfile.ZipFile(tmp_path / "m.keras") as archive:
        entry = json.loads(archive.read("config.json"))["config"]["layers"][-1]
    assert (entry["class_name"], entry["registered_name"]) == ("NamedDense",
                                                               "names_test>NamedDense")
    x = np.ones((2, 3), "float32")
    for name in ("m.h5", "m.keras"):
        loaded = lamina.saving.load_model(tmp_path / name)
        assert type(loaded.layers[-1]) is NamedDense
        np.testing.assert_array_equal(loaded.predict(x, verbose=0), model.predict(x, verbose=0))


def _square(x):
    return x * x


@lamina.saving.register_keras_serializable(package="names_test", name="cube")
def cube(x):
    """Registered as ``names_test>cube``."""
    return x * x * x


def _dense_model(activation):
    inputs = lamina.Input((3,))
    return lamina.Model(inputs, Dense(2, activation=activation)(inputs))


@pytest.mark.parametrize("suffix", [".keras", ".h5"])
def test_custom_activation_functions_load(tmp_path, suffix):
    """Keras: ``load_model(custom_objects=...)`` resolves a custom activation function
    (anywhere in the config); a registered one is saved as ``"package>name"`` and loads
    without custom objects; a bare name still finds a registered function."""
    import numpy as np

    x = np.linspace(-1, 1, 6, dtype="float32").reshape(2, 3)
    plain = _dense_model(_square)
    plain.save(tmp_path / f"plain{suffix}")
    with pytest.raises(Exception, match="_square"):
        lamina.saving.load_model(tmp_path / f"plain{suffix}")
    loaded = lamina.saving.load_model(tmp_path / f"plain{suffix}",
                                      custom_objects={"_square": _square})
    np.testing.assert_allclose(loaded.predict(x, verbose=0), plain.predict(x, verbose=0))

    registered = _dense_model(cube)
    assert registered.layers[-1].get_config()["activation"] == "names_test>cube"
    registered.save(tmp_path / f"registered{suffix}")
    loaded = lamina.saving.load_model(tmp_path / f"registered{suffix}")
    assert loaded.layers[-1].activation is cube
    assert lamina.activations.deserialize("cube") is cube

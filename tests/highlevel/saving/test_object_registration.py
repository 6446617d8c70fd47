"""``register_keras_serializable``, ``get_custom_objects``, ``custom_object_scope`` and
``get_registered_name`` / ``get_registered_object``: Keras 3's contract (names
``"package>name"``; the scope beats the global registrations, which beat
``custom_objects``), through the one registry every lamina lookup uses.

Keras 3.15 reference (``KERAS_BACKEND=torch``)::

    @keras.saving.register_keras_serializable(package="my_package")
    class MyDense(keras.layers.Dense): pass
    keras.saving.get_registered_name(MyDense)          # 'my_package>MyDense'
    keras.saving.get_registered_name(unregistered_fn)  # 'unregistered_fn'
    keras.saving.get_registered_object("my_package>MyDense")   # MyDense
"""

import threading

import numpy as np
import pytest

import lamina
from lamina.layers import Dense, Layer


@lamina.saving.register_keras_serializable(package="reg_test")
class RegisteredScaledDense(Dense):
    """A Dense layer subclass registered by the decorator."""


@lamina.saving.register_keras_serializable(package="reg_test", name="triple")
def triple(x):
    return x * 3


def test_registered_names_are_package_and_name():
    assert lamina.saving.get_registered_name(RegisteredScaledDense) == "reg_test>RegisteredScaledDense"
    assert lamina.saving.get_registered_name(triple) == "reg_test>triple"
    assert lamina.saving.get_registered_name(Layer) == "Layer"
    custom = lamina.saving.get_custom_objects()
    assert custom["reg_test>RegisteredScaledDense"] is RegisteredScaledDense
    assert lamina.saving.get_registered_object("reg_test>RegisteredScaledDense") is RegisteredScaledDense
    assert lamina.saving.get_registered_object("nothing>here") is None
    assert lamina.saving.get_registered_object("x", module_objects={"x": triple}) is triple


def test_a_registered_class_resolves_in_every_layer_lookup():
    assert lamina.layers.get("reg_test>RegisteredScaledDense") is RegisteredScaledDense
    assert lamina.layers.get("Dense") is Dense                    # built-ins stay built-in


def test_register_refuses_bad_packages_and_classes_without_config():
    with pytest.raises(ValueError, match="package"):
        lamina.saving.register_keras_serializable(package="a>b")
    with pytest.raises(ValueError, match="get_config"):
        lamina.saving.register_keras_serializable()(type("Plain", (), {}))


def test_get_custom_objects_is_the_mutable_global_table():
    objects = lamina.saving.get_custom_objects()
    objects["HandAdded"] = RegisteredScaledDense
    try:
        assert lamina.layers.get("HandAdded") is RegisteredScaledDense
    finally:
        del objects["HandAdded"]
    with pytest.raises(ValueError, match="unknown layer 'HandAdded'"):
        lamina.layers.get("HandAdded")


def test_custom_object_scope_nests_restores_and_is_per_thread():
    class Mine(Dense):
        pass

    class Other(Dense):
        pass

    assert lamina.saving.CustomObjectScope is lamina.saving.custom_object_scope
    with lamina.saving.custom_object_scope({"Mine": Mine}):
        assert lamina.layers.get("Mine") is Mine
        with lamina.saving.CustomObjectScope({"Mine": Other}):
            assert lamina.layers.get("Mine") is Other          # the inner scope wins
        assert lamina.layers.get("Mine") is Mine
        seen = []
        thread = threading.Thread(target=lambda: seen.append(
            lamina.saving.get_registered_object("Mine")))
        thread.start()
        thread.join()
        assert seen == [None]                                  # another thread: no scope
        # Keras' precedence: the scope beats an explicit custom_objects argument.
        assert lamina.saving.get_registered_object("Mine", {"Mine": Other}) is Mine
    with pytest.raises(ValueError, match="unknown layer 'Mine'"):
        lamina.layers.get("Mine")
    with pytest.raises(TypeError, match="dict"):
        lamina.saving.CustomObjectScope(["Mine"])


def test_registered_classes_load_from_files_without_custom_objects(tmp_path):
    model = lamina.Sequential([lamina.Input((3,)), RegisteredScaledDense(2, name="scaled")])
    x = np.arange(6, dtype="float32").reshape(2, 3)
    for name in ("m.keras", "m.h5"):
        model.save(tmp_path / name)
        loaded = lamina.saving.load_model(tmp_path / name)
        assert type(loaded.layers[0]) is RegisteredScaledDense
        np.testing.assert_array_equal(loaded.predict(x, verbose=0), model.predict(x, verbose=0))


def test_a_scoped_class_loads_from_a_file(tmp_path):
    class Local(Dense):
        pass

    model = lamina.Sequential([lamina.Input((3,)), Local(2)])
    model.save(tmp_path / "m.keras")
    with pytest.raises(lamina.saving.UnknownClassError, match="Local"):
        lamina.saving.load_model(tmp_path / "m.keras")
    with lamina.saving.custom_object_scope({"Local": Local}):
        assert type(lamina.saving.load_model(tmp_path / "m.keras").layers[0]) is Local


@lamina.saving.register_keras_serializable(package="reg_test")
class Subclassed(lamina.Model):
    """A registered subclassed model (rebuilt from its build_config)."""

    def __init__(self, units=3, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.dense = Dense(units)

    def call(self, x):
        return self.dense(x)

    def get_config(self):
        return {**super().get_config(), "units": self.units}


def test_a_registered_subclassed_model_round_trips_through_keras_zip(tmp_path):
    model = Subclassed(4, name="sub")
    x = np.ones((2, 5), "float32")
    model.compile(optimizer="adam", loss="mse")
    model.fit(x, np.zeros((2, 4), "float32"), verbose=0)
    model.save(tmp_path / "m.keras")
    loaded = lamina.saving.load_model(tmp_path / "m.keras")
    assert type(loaded) is Subclassed and loaded.units == 4
    assert loaded.optimizer.iterations == 1
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), model.predict(x, verbose=0))

"""Model pickling (saving.reduce_model / rebuild): custom layer classes, Lambda functions
and custom loss functions travel as "module:qualname" strings, never as pickled classes,
functions or code; what cannot be named raises before anything is written, and a name
this process cannot import fails with an error naming it."""

import io
import pickle

import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.highlevel.saving import model_file as saving

import lamina_custom_objects as custom_objects         # tests/highlevel/support (conftest)


def _globals_of(data):
    seen = set()

    class Recorder(pickle.Unpickler):
        def find_class(self, module, name):
            seen.add((module, name))
            return super().find_class(module, name)

    return Recorder(io.BytesIO(data)).load(), seen


def custom_loss(y_true, y_pred):
    """A custom loss function (this test module is importable under its own name)."""
    return lamina.ops.mean((y_true - y_pred) ** 2, axis=-1)


def test_custom_objects_pickle_as_import_names():
    model = custom_objects.custom_network(4, 3)
    x = np.random.default_rng(0).normal(size=(5, 4))
    restored, found = _globals_of(pickle.dumps(model))
    assert {module for module, _ in found} == {"lamina.highlevel.saving.model_file"}, found
    assert [type(layer) for layer in restored.layers[:2]] == [
        custom_objects.RegisteredScale, custom_objects.Shift]
    assert restored.layers[2].function is custom_objects.soft_clip
    np.testing.assert_array_equal(restored.predict(x, verbose=0),
                                  model.predict(x, verbose=0))
    _, references = saving.pickled_state(model)
    assert references == {name: f"lamina_custom_objects:{name}"
                          for name in ("RegisteredScale", "Shift", "soft_clip")}


def test_a_custom_loss_function_travels_by_name():
    model = lamina.Sequential([lamina.Input((3,)), layers.Dense(2)])
    model.compile(optimizer="sgd", loss=custom_loss)
    _, references = saving.pickled_state(model)
    assert references == {"custom_loss": f"{__name__}:custom_loss"}
    restored = pickle.loads(pickle.dumps(model))
    assert restored._compiled_loss.losses[0].fn is custom_loss


def test_what_has_no_import_name_is_refused_when_pickling():
    def local_function(inputs):
        return inputs

    for function in (lambda inputs: inputs, local_function):
        model = lamina.Sequential([lamina.Input((3,)), layers.Lambda(function)])
        with pytest.raises(pickle.PicklingError, match="not importable by name"):
            pickle.dumps(model)


def test_an_unimportable_reference_names_the_object_and_module():
    with pytest.raises(pickle.UnpicklingError, match="'Shift'.*no_such_module_for_lamina"):
        saving.resolve_references({"Shift": "no_such_module_for_lamina:Shift"})
    with pytest.raises(pickle.UnpicklingError, match="not a 'module:qualname'"):
        saving.resolve_references({"Shift": "os:system('x')"})
    with pytest.raises(pickle.UnpicklingError, match="pickled as type, not as"):
        saving.resolve_references({"Shift": custom_objects.Shift})
    with pytest.raises(pickle.UnpicklingError, match="not a class or function"):
        saving.resolve_references({"Shift": "lamina_custom_objects:__doc__"})

"""The root package's public surface: the Keras-style namespaces are real modules, importable
in every form Keras users write, and they hand out the implementing package's objects."""

import importlib
import importlib.util
import os
import subprocess
import sys
import types

import pytest

import lamina

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# namespace -> (the module that implements it, one public name it must re-export)
NAMESPACES = {
    "activations": ("lamina.layers.options.activations", "relu"),
    "backends": ("lamina.backends", "set_backend"),
    "callbacks": ("lamina.highlevel.callbacks", "EarlyStopping"),
    "config": ("lamina.backends.config", "floatx"),
    "constraints": ("lamina.layers.options.constraints", "NonNeg"),
    "distribution": ("lamina.highlevel.distribution", "DataParallel"),
    "initializers": ("lamina.layers.options.initializers", "GlorotUniform"),
    "layers": ("lamina.layers", "Dense"),
    "losses": ("lamina.highlevel.losses", "MeanSquaredError"),
    "metrics": ("lamina.highlevel.metrics", "AUC"),
    "models": ("lamina.highlevel.models", "clone_model"),
    "ops": ("lamina.backends.ops", "relu"),
    "ops.nn": ("lamina.backends.ops.nn", "relu"),
    "ops.image": ("lamina.backends.ops.image", "extract_patches"),
    "ops.numpy": ("lamina.backends.ops", "matmul"),
    "optimizers": ("lamina.highlevel.optimizers", "Adam"),
    "optimizers.schedules": ("lamina.highlevel.optimizers.schedules", "ExponentialDecay"),
    "regularizers": ("lamina.layers.options.regularizers", "L2"),
    "saving": ("lamina.highlevel.saving", "load_model"),
    "utils": ("lamina.highlevel.utils", "to_categorical"),
    "wrappers": ("lamina.highlevel.wrappers", "SKLearnClassifier"),
    "backend": ("lamina.backends.state", "epsilon"),
    "tree": ("lamina.backends.tree", "map_structure"),
    "preprocessing": ("lamina.highlevel.utils", "timeseries_dataset_from_array"),
    "preprocessing.image": ("lamina.highlevel.utils.image_resizing", "smart_resize"),
    "preprocessing.sequence": ("lamina.highlevel.utils", "pad_sequences"),
}


@pytest.mark.parametrize("namespace", sorted(NAMESPACES))
def test_every_import_form_gives_the_implementing_objects(namespace):
    source, name = NAMESPACES[namespace]
    implementation = getattr(importlib.import_module(source), name)
    imported = importlib.import_module(f"lamina.{namespace}")            # import lamina.X
    assert isinstance(imported, types.ModuleType)
    assert sys.modules[f"lamina.{namespace}"] is imported
    reached = lamina
    for part in namespace.split("."):                                     # lamina.X.Y
        reached = getattr(reached, part)
    assert reached is imported
    parent, _, leaf = f"lamina.{namespace}".rpartition(".")
    assert getattr(__import__(parent, fromlist=[leaf]), leaf) is imported  # from lamina.X import Y
    from_import = __import__(f"lamina.{namespace}", fromlist=[name])      # from lamina.X import Z
    assert getattr(from_import, name) is implementation
    assert name in getattr(imported, "__all__", dir(imported))


@pytest.mark.parametrize("statement", [
    "from lamina.optimizers.schedules import ExponentialDecay",
    "import lamina.ops.nn; lamina.ops.nn.relu",
    "import lamina.optimizers.schedules as s; s.CosineDecay",
    "from lamina.ops import nn; nn.softmax",
    "from lamina.saving import load_model, save_model, CheckpointError",
    "from lamina.callbacks import Callback, EarlyStopping",
    "from lamina.ops import numpy as knp; knp.matmul; knp.view",
    "from lamina import Layer, KerasTensor, Loss, Metric, Optimizer, name_scope, device",
    "import lamina.backend; lamina.backend.epsilon()",
    "from lamina.backend import floatx, image_data_format",
    "import lamina as keras; keras.tree.flatten({'b': 1, 'a': 2}) == [2, 1] or exit(1)",
    "from lamina.preprocessing.image import load_img, img_to_array, smart_resize",
    "from lamina.preprocessing.sequence import pad_sequences",
    "from lamina.preprocessing import image_dataset_from_directory",
    "from lamina.models import save_model, load_model",
    "from lamina.utils import Config, get_file",
    "from lamina.utils import disable_interactive_logging, is_interactive_logging_enabled",
    "from lamina.callbacks import SwapEMAWeights",
    "from lamina.optimizers.schedules import CosineDecayRestarts",
    "import lamina as keras; keras.optimizers.get('lamb').__class__.__name__ == 'Lamb' or exit(1)",
])
def test_keras_style_statements_run_in_a_fresh_interpreter(statement):
    subprocess.run([sys.executable, "-c", statement], check=True)


def test_one_class_object_per_public_class():
    from lamina.highlevel.optimizers import Adam
    from lamina.optimizers import Adam as public_adam

    assert public_adam is Adam is lamina.optimizers.Adam
    assert lamina.optimizers.schedules.ExponentialDecay is \
        importlib.import_module("lamina.highlevel.optimizers.schedules").ExponentialDecay
    assert lamina.saving.CheckpointError is \
        importlib.import_module("lamina.highlevel.saving.errors").CheckpointError
    assert lamina.load_model is lamina.saving.load_model is lamina.models.load_model


def test_no_import_hook_is_installed():
    assert not any(type(finder).__module__.startswith("lamina") for finder in sys.meta_path)


def test_import_does_not_load_scikit_learn_until_wrappers_are_used():
    code = ("import sys, lamina; assert 'sklearn' not in sys.modules; "
            "from lamina.wrappers import SKLearnClassifier; assert 'sklearn' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_unknown_attribute_raises_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nonexistent'"):
        lamina.nonexistent  # noqa: B018


def test_setup_finds_every_package_folder():
    spec = importlib.util.spec_from_file_location("lamina_setup", os.path.join(ROOT, "setup.py"))
    setup_module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(setup_module)            # not __main__: setup() is not run
    listed = set(setup_module.lamina_packages(ROOT))
    found = {"lamina"}
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if not d.startswith((".", "_")) and d not in
                   ("tests", "examples", "benchmarks", "build")]
        if folder != ROOT and "__init__.py" in files:
            found.add("lamina." + os.path.relpath(folder, ROOT).replace(os.sep, "."))
    assert listed == found


# Keras 3.15.1's top-level names lamina has, and the object each one is in lamina
TOP_LEVEL = {
    "Layer": "lamina.layers.Layer", "InputSpec": "lamina.layers.InputSpec",
    "KerasTensor": "lamina.layers.symbolic.SymbolicTensor", "Loss": "lamina.losses.Loss",
    "Metric": "lamina.metrics.Metric", "Optimizer": "lamina.optimizers.Optimizer",
    "Initializer": "lamina.initializers.Initializer",
    "Regularizer": "lamina.regularizers.Regularizer",
    "DTypePolicy": "lamina.dtype_policies.DTypePolicy",
    "FloatDTypePolicy": "lamina.dtype_policies.FloatDTypePolicy",
    "Operation": "lamina.layers.Layer", "name_scope": "lamina.backends.name_scope.name_scope",
    "device": "lamina.backends.context.device",
}


@pytest.mark.parametrize("name", sorted(TOP_LEVEL))
def test_keras_top_level_names_are_the_implementing_objects(name):
    module_name, _, attribute = TOP_LEVEL[name].rpartition(".")
    assert getattr(lamina, name) is getattr(importlib.import_module(module_name), attribute)
    assert name in lamina.__all__


def test_keras_3_code_on_the_top_level_names():
    class Scale(lamina.Layer):
        def build(self, input_shape):
            self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="w")

        def call(self, inputs):
            return inputs * self.w

    inputs = lamina.Input((3,))
    assert isinstance(inputs, lamina.KerasTensor) and lamina.backend.is_keras_tensor(inputs)
    outputs = Scale()(inputs)
    assert isinstance(outputs, lamina.KerasTensor)
    assert issubclass(Scale, lamina.layers.Layer) and isinstance(Scale(), lamina.Operation)
    spec = lamina.KerasTensor((None, 4))             # Keras' default dtype
    assert (spec.shape, spec.dtype) == ((None, 4), "float32")
    assert lamina.version() == lamina.__version__


def test_the_backend_namespace_has_keras_names():
    # dir(keras.backend) of Keras 3.15.1 but result_type
    names = {"backend", "clear_session", "epsilon", "floatx", "get_uid", "image_data_format",
             "is_float_dtype", "is_int_dtype", "is_keras_tensor", "set_epsilon", "set_floatx",
             "set_image_data_format", "standardize_dtype"}
    assert names <= set(lamina.backend.__all__)
    assert lamina.backend.backend() == lamina.backends.get_backend().name
    assert lamina.backend.clear_session is lamina.utils.clear_session
    assert lamina.backend.floatx is lamina.config.floatx
def test_models_save_model_writes_what_load_model_reads(tmp_path):
    import numpy as np

    model = lamina.Sequential([lamina.layers.Input((3,)), lamina.layers.Dense(2)])
    x = np.arange(6, dtype="float32").reshape(2, 3)
    for name in ("m.keras", "m.h5"):
        lamina.models.save_model(model, tmp_path / name)
        np.testing.assert_allclose(lamina.models.load_model(tmp_path / name).predict(x, verbose=0),
                                   model.predict(x, verbose=0))
    with pytest.raises(FileExistsError):
        lamina.models.save_model(model, tmp_path / "m.keras", overwrite=False)

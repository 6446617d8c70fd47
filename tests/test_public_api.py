"""The root package's public surface: Keras-style namespaces are importable modules."""

import subprocess
import sys

import pytest

import lamina


@pytest.mark.parametrize("namespace,name", [
    ("optimizers", "Adam"), ("losses", "MeanSquaredError"), ("metrics", "AUC"),
    ("callbacks", "EarlyStopping"), ("models", "clone_model"), ("utils", "to_categorical"),
    ("ops", "relu"), ("config", "floatx"), ("activations", "relu"),
    ("initializers", "GlorotUniform"), ("regularizers", "L2"), ("wrappers", "SKLearnClassifier"),
])
def test_namespace_imports_like_keras(namespace, name):
    module = __import__(f"lamina.{namespace}", fromlist=[name])
    assert getattr(module, name) is getattr(getattr(lamina, namespace), name)


def test_import_does_not_load_scikit_learn_until_wrappers_are_used():
    code = ("import sys, lamina; assert 'sklearn' not in sys.modules; "
            "from lamina.wrappers import SKLearnClassifier; assert 'sklearn' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_unknown_attribute_raises_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nonexistent'"):
        lamina.nonexistent  # noqa: B018

"""lamina: a Keras-style deep-learning framework with its own NumPy and CuPy engines.

Example:
    >>> import lamina
    >>> from lamina import layers
    >>> model = lamina.Sequential([layers.Input((4,)), layers.Dense(3, activation="softmax")])
    >>> model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
"""

import importlib
import importlib.abc
import importlib.util
import sys

from . import backends, layers
from .backends import Tensor, Variable, config, grad, no_grad, ops
from .highlevel.callbacks import callbacks
from .highlevel.losses import losses
from .highlevel.metrics import metrics
from .highlevel import models, utils
from .highlevel import optimizers
from .highlevel.models.model import Model
from .highlevel.saving.model_file import load_model
from .highlevel.models.sequential import Sequential
from .layers import Input
from .layers.options import activations, constraints, initializers, regularizers

__version__ = "0.1.0"   # the one place the version is written (pyproject reads it)

# Public namespaces as Keras spells them (``from lamina.optimizers import Adam``): each
# name is an importable alias of the module that implements it. ``wrappers`` imports
# scikit-learn, so it loads on first use only.
_NAMESPACES = {
    "ops": "lamina.backends.ops", "config": "lamina.backends.config",
    "callbacks": "lamina.highlevel.callbacks.callbacks", "losses": "lamina.highlevel.losses.losses",
    "metrics": "lamina.highlevel.metrics.metrics", "models": "lamina.highlevel.models",
    "optimizers": "lamina.highlevel.optimizers", "utils": "lamina.highlevel.utils",
    "activations": "lamina.layers.options.activations", "initializers": "lamina.layers.options.initializers",
    "regularizers": "lamina.layers.options.regularizers", "constraints": "lamina.layers.options.constraints",
    "wrappers": "lamina.highlevel.wrappers.sklearn",
}


class _NamespaceAliases(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Makes ``import lamina.<namespace>`` load the implementing module."""

    _own_specs = {}

    def find_spec(self, fullname, path=None, target=None):
        prefix, _, name = fullname.partition(".")
        if prefix == __name__ and name in _NAMESPACES:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        module = importlib.import_module(_NAMESPACES[spec.name.partition(".")[2]])
        self._own_specs[module.__name__] = module.__spec__
        return module

    def exec_module(self, module):
        # Already executed; give back its own spec (the import system set the alias's).
        module.__spec__ = self._own_specs[module.__name__]


sys.meta_path.append(_NamespaceAliases())
for _name in _NAMESPACES:
    if _name != "wrappers":
        sys.modules[f"{__name__}.{_name}"] = globals()[_name]


def __getattr__(name):
    if name == "wrappers":
        return importlib.import_module(f"{__name__}.wrappers")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

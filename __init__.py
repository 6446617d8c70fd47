"""lamina: a Keras-style deep-learning framework with its own NumPy and CuPy engines.

Example:
    >>> import lamina
    >>> from lamina import layers
    >>> model = lamina.Sequential([layers.Input((4,)), layers.Dense(3, activation="softmax")])
    >>> model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
"""

import importlib
import os

# The public namespaces (``lamina.optimizers``, ``lamina.ops.nn``, ...) are the modules of
# ``api/``, found on the package path as Keras finds ``keras/api``; see ``api/__init__.py``.
__path__.append(os.path.join(os.path.dirname(__file__), "api"))

from . import backends, layers  # noqa: E402
from . import (activations, callbacks, config, constraints, initializers, losses,  # noqa: E402
               metrics, models, ops, optimizers, random, regularizers, saving, utils)
from . import dtype_policies, mixed_precision  # noqa: E402
from . import distribution  # noqa: E402
from . import tree  # noqa: E402
from . import preprocessing  # noqa: E402
from .backends import Tensor, Variable, grad, no_grad  # noqa: E402
from .highlevel.models import Model, Sequential, load_model  # noqa: E402
from .layers import Input  # noqa: E402
from . import backend  # noqa: E402
from .backends.context import device  # noqa: E402
from .backends.name_scope import name_scope  # noqa: E402
from .layers import InputSpec, Layer  # noqa: E402
from .layers.options.dtype_policies import DTypePolicy, FloatDTypePolicy  # noqa: E402
from .layers.options.initializers import Initializer  # noqa: E402
from .layers.options.regularizers import Regularizer  # noqa: E402
from .layers.symbolic import SymbolicTensor as KerasTensor  # noqa: E402
from .highlevel.losses import Loss  # noqa: E402
from .highlevel.metrics import Metric  # noqa: E402
from .highlevel.optimizers import Optimizer  # noqa: E402

__version__ = "0.1.0"   # the one place the version is written (pyproject reads it)

# Keras' ``Operation`` is the base of everything that records a node of a functional graph;
# in lamina that is ``Layer`` (an operator on symbolic tensors records a weightless layer).
Operation = Layer


def version():
    """lamina's version string (``__version__``), as ``keras.version()``."""
    return __version__


def __getattr__(name):
    # ``lamina.wrappers`` imports scikit-learn (seconds), so it loads on first use only.
    if name == "wrappers":
        return importlib.import_module(f"{__name__}.wrappers")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Input", "Model", "Sequential", "Tensor", "Variable", "activations", "backends",
    "callbacks", "config", "constraints", "grad", "initializers", "layers", "load_model",
    "losses", "metrics", "models", "no_grad", "ops", "optimizers", "random", "regularizers",
    "saving", "utils", "dtype_policies", "mixed_precision",
    "distribution",
    "backend", "device", "name_scope", "version", "DTypePolicy", "FloatDTypePolicy",
    "Initializer", "InputSpec", "KerasTensor", "Layer", "Loss", "Metric", "Operation",
    "Optimizer", "Regularizer",
    "tree",
    "preprocessing",
]   # not "wrappers": a star import would load scikit-learn

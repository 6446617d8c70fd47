"""lamina: a Keras-style deep-learning framework with its own NumPy and CuPy engines.

Example:
    >>> import lamina
    >>> from lamina import layers
    >>> model = lamina.Sequential([layers.Input((4,)), layers.Dense(3, activation="softmax")])
    >>> model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
"""

from . import backends, layers
from .backends import Tensor, Variable, config, grad, no_grad, ops
from .highlevel import callbacks, losses, metrics, models, optimizers, utils
from .highlevel import wrappers
from .highlevel.model import Model
from .highlevel.saving import load_model
from .highlevel.sequential import Sequential
from .layers import Input, activations, initializers, regularizers

__version__ = "0.1.0"

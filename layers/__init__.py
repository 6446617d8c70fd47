"""``lamina.layers``: the Layer base class and every built-in layer.

Example:
    >>> from lamina import layers
    >>> dense = layers.Dense(64, activation="relu")
"""

from . import activations, initializers, regularizers
from .base import LAYERS, InputSpec, Layer
from .core import (Activation, Dense, Dropout, Flatten, Identity, Lambda, Permute, RepeatVector,
                   Reshape, Rescaling)
from .input_layer import Input, InputLayer
from .symbolic import SymbolicTensor


def get(name, custom_objects=None):
    """The layer class registered as ``name`` (``custom_objects`` first)."""
    return LAYERS.lookup(name, custom_objects)

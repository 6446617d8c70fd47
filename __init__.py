"""lamina: a Keras-style deep-learning framework with its own NumPy and CuPy engines.

Example:
    >>> import lamina
    >>> from lamina import layers
    >>> model = lamina.Sequential([layers.Input((4,)), layers.Dense(3, activation="softmax")])
"""

from . import backends
from .backends import Tensor, Variable, config, grad, no_grad, ops

__version__ = "0.1.0"

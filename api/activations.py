"""``lamina.activations``: activation functions by Keras name, as ``keras.activations``."""

from lamina.layers.options.activations import *  # noqa: F401,F403  (the public names)
from lamina.layers.options.activations import __all__  # noqa: F401

"""``lamina.initializers``: weight initializers, as ``keras.initializers``."""

from lamina.layers.options.initializers import *  # noqa: F401,F403  (the public names)
from lamina.layers.options.initializers import __all__  # noqa: F401

"""``lamina.regularizers``: weight regularizers, as ``keras.regularizers``."""

from lamina.layers.options.regularizers import *  # noqa: F401,F403  (the public names)
from lamina.layers.options.regularizers import __all__  # noqa: F401

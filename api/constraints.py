"""``lamina.constraints``: weight constraints, as ``keras.constraints``."""

from lamina.layers.options.constraints import *  # noqa: F401,F403  (the public names)
from lamina.layers.options.constraints import __all__  # noqa: F401

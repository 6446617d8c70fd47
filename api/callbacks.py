"""``lamina.callbacks``: training callbacks, as ``keras.callbacks``."""

from lamina.highlevel.callbacks import *  # noqa: F401,F403  (the public names)
from lamina.highlevel.callbacks import __all__  # noqa: F401

"""``lamina.losses``: loss functions and classes, as ``keras.losses``."""

from lamina.highlevel.losses import *  # noqa: F401,F403  (the public names)
from lamina.highlevel.losses import __all__  # noqa: F401

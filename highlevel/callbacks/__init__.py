"""``lamina.callbacks``: training callbacks, as ``keras.callbacks``."""

from . import callbacks
from .callbacks import *  # noqa: F401,F403  (the public names)

__all__ = list(callbacks.__all__)

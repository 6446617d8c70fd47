"""``lamina.losses``: loss functions and classes, as ``keras.losses``."""

from . import losses
from .losses import *  # noqa: F401,F403  (the public names)

__all__ = list(losses.__all__)

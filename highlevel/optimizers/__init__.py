"""``lamina.optimizers``: optimizers and ``schedules``, as ``keras.optimizers``."""

from . import optimizers
from .optimizers import *  # noqa: F401,F403  (the public names)

__all__ = list(optimizers.__all__)

"""``lamina.saving``: checkpoints in Keras' file formats, as ``keras.saving``."""

from . import model_file
from .model_file import *  # noqa: F401,F403  (the public names)

__all__ = list(model_file.__all__)

"""``lamina.metrics``: stateful metrics, as ``keras.metrics``."""

from . import metrics
from .metrics import *  # noqa: F401,F403  (the public names)

__all__ = list(metrics.__all__)

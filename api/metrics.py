"""``lamina.metrics``: stateful metrics, as ``keras.metrics``."""

from lamina.highlevel.metrics import *  # noqa: F401,F403  (the public names)
from lamina.highlevel.metrics import __all__  # noqa: F401

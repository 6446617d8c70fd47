"""``lamina.config``: global settings (engine, float type), as ``keras.config``."""

from lamina.backends.config import *  # noqa: F401,F403  (the public names)
from lamina.backends.config import __all__  # noqa: F401

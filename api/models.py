"""``lamina.models``: model classes and model-level helpers, as ``keras.models``."""

from lamina.highlevel.models import *  # noqa: F401,F403  (the public names)
from lamina.highlevel.models import __all__  # noqa: F401

"""``lamina.utils``: data helpers (``to_categorical``, ``set_random_seed``), as ``keras.utils``."""

from lamina.highlevel.utils import *  # noqa: F401,F403  (the public names)
from lamina.highlevel.utils import __all__  # noqa: F401

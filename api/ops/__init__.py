"""``lamina.ops``: the differentiable op set, as ``keras.ops`` (``nn``, ``linalg``,
``image`` and ``numpy`` are submodules)."""

from lamina.backends.ops import *  # noqa: F401,F403  (the public names)
from lamina.backends.ops import __all__  # noqa: F401

from . import image, linalg, nn  # noqa: E402,F401
from . import numpy  # noqa: E402,F401

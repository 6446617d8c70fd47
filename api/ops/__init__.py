"""``lamina.ops``: the differentiable op set, as ``keras.ops`` (``nn`` and ``linalg`` are
submodules)."""

from lamina.backends.ops import *  # noqa: F401,F403  (the public names)
from lamina.backends.ops import __all__  # noqa: F401

from . import linalg, nn  # noqa: E402,F401

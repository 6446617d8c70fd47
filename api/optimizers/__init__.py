"""``lamina.optimizers``: optimizers, as ``keras.optimizers`` (``schedules`` is a submodule)."""

import importlib

from lamina.highlevel.optimizers import *  # noqa: F401,F403  (the public names)
from lamina.highlevel.optimizers import __all__  # noqa: F401

# This package's own submodule, so that ``lamina.optimizers.schedules`` is one module
# whether reached as an attribute or imported (``from . import`` would keep the
# implementing package's ``schedules`` brought in by the star import).
schedules = importlib.import_module(f"{__name__}.schedules")

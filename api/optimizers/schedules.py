"""``lamina.optimizers.schedules``: learning-rate schedules, as ``keras.optimizers.schedules``."""

from lamina.highlevel.optimizers.schedules import *  # noqa: F401,F403  (the public names)
from lamina.highlevel.optimizers.schedules import __all__  # noqa: F401

"""``lamina.utils``: helpers as ``keras.utils`` (data, seeding, plot_model, plot_history)."""

from lamina.highlevel.utils import *  # noqa: F401,F403  (the public names)
from lamina.highlevel.utils import __all__  # noqa: F401

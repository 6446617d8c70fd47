"""``lamina.distribution``: data-parallel training over MPI / NCCL, as
``keras.distribution``."""

from lamina.highlevel.distribution import *  # noqa: F401,F403  (the public names)
from lamina.highlevel.distribution import __all__  # noqa: F401

"""``lamina.optimizers``: optimizers and ``schedules``, as ``keras.optimizers``.

One module per optimizer, each with its own update rule (``sgd``, ``adam``, ``adamw``,
``rmsprop``, ``adagrad``) on the base class of ``optimizer``; ``lookup`` resolves names
and configs. A new optimizer is a new module that subclasses :class:`Optimizer`, registers
itself in ``OPTIMIZERS`` and is imported here.
"""

from . import schedules
from .adagrad import Adagrad
from .adam import Adam
from .adamw import AdamW
from .lookup import deserialize, get, serialize
from .loss_scale_optimizer import LossScaleOptimizer
from .optimizer import OPTIMIZERS, Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Adagrad", "Adam", "AdamW", "LossScaleOptimizer", "OPTIMIZERS", "Optimizer", "RMSprop", "SGD",
           "deserialize", "get", "schedules", "serialize"]

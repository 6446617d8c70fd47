"""``lamina.optimizers``: optimizers and ``schedules``, as ``keras.optimizers``.

One module per optimizer, each with its own update rule (``sgd``, ``adam``, ``adamw``,
``rmsprop``, ``adagrad``, ``nadam``, ``adamax``, ``adadelta``, ``lion``, ``ftrl``,
``adafactor``, ``lamb``) on the base class of ``optimizer`` (Nadam, Adamax and Lamb through
``moments``); ``lookup`` resolves names and configs. A new optimizer is a new module that subclasses :class:`Optimizer`, registers
itself in ``OPTIMIZERS`` and is imported here.
"""

from . import schedules
from .adadelta import Adadelta
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .ftrl import Ftrl
from .lamb import Lamb
from .lion import Lion
from .lookup import deserialize, get, serialize
from .loss_scale_optimizer import LossScaleOptimizer
from .nadam import Nadam
from .optimizer import OPTIMIZERS, Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Adadelta", "Adafactor", "Adagrad", "Adam", "Adamax", "AdamW", "Ftrl", "Lion",
           "LossScaleOptimizer", "Nadam", "OPTIMIZERS", "Optimizer", "RMSprop", "SGD",
           "deserialize", "get", "schedules", "serialize", "Lamb"]

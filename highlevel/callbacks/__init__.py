"""``lamina.callbacks``: training callbacks, with Keras 3's names, arguments, defaults and
semantics (one module per concern; this package re-exports the public names)."""

from .callback import CALLBACKS, Callback, deserialize, get
from .callback_list import CallbackList
from .checkpoint import BackupAndRestore, ModelCheckpoint
from .csv_logger import CSVLogger
from .history import History
from .lambda_callback import LambdaCallback
from .monitor import EarlyStopping, LearningRateScheduler, ReduceLROnPlateau, TerminateOnNaN
from .progbar import Progbar, ProgbarLogger
from .swap_ema_weights import SwapEMAWeights
from .tensorboard import TensorBoard

__all__ = [
    "CALLBACKS", "Callback", "CallbackList", "History", "ProgbarLogger", "EarlyStopping",
    "ReduceLROnPlateau", "LearningRateScheduler", "CSVLogger", "TerminateOnNaN",
    "LambdaCallback", "ModelCheckpoint", "BackupAndRestore", "TensorBoard", "get",
    "deserialize", "SwapEMAWeights",
]

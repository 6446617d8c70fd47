"""Callbacks that watch a logged quantity or the epoch and act on training:
:class:`EarlyStopping`, :class:`ReduceLROnPlateau`, :class:`LearningRateScheduler` and
:class:`TerminateOnNaN`.

``mode="auto"`` is resolved from the monitored name (or the model's metric of that name)
by :func:`resolve_mode`, which :class:`~lamina.highlevel.callbacks.checkpoint.ModelCheckpoint`
shares.
"""

import inspect
import numbers
import warnings

import numpy as np

from .callback import CALLBACKS, Callback, print_line

_MAX_HINTS = ("acc", "auc", "precision", "recall", "f1_score", "fmeasure")
MODES = ("auto", "min", "max")   # the accepted ``mode`` arguments


def check_mode(mode, owner, stacklevel=2):
    """``mode`` when it is one of ``auto|min|max``; otherwise warn (``stacklevel`` as seen
    from the caller) and fall back to ``"auto"``, as Keras does."""
    if mode in MODES:
        return mode
    warnings.warn(f"{owner} mode {mode!r} is unknown, fallback to auto mode.",
                  stacklevel=stacklevel + 1)
    return "auto"


def resolve_mode(mode, monitor, model=None, owner="callback"):
    """``"min"`` or ``"max"`` for ``mode`` (``"auto"`` decides from the monitor's name).

    In auto mode a metric object of the model named like the monitor with a
    ``_direction`` of ``"up"``/``"down"`` decides; otherwise names containing ``acc``,
    ``auc``, ``precision`` or ``recall`` (or an F1 score) are maximized, the rest minimized.
    """
    mode = check_mode(mode, owner, stacklevel=3)
    if mode != "auto":
        return mode
    name = monitor[4:] if monitor.startswith("val_") else monitor
    try:
        metrics = list(getattr(model, "metrics", None) or [])
    except Exception:  # a model property that is not ready yet
        metrics = []
    for metric in metrics:
        direction = getattr(metric, "_direction", None)
        if getattr(metric, "name", None) == name and direction in ("up", "down"):
            return "max" if direction == "up" else "min"
    return "max" if any(hint in name for hint in _MAX_HINTS) else "min"


def _get_lr(model):
    return float(model.optimizer.learning_rate)


@CALLBACKS.register()
class EarlyStopping(Callback):
    """Stops training when ``monitor`` has stopped improving for ``patience`` epochs.

    ``min_delta``: smallest change counted as an improvement. ``mode``: ``"min"``,
    ``"max"`` or ``"auto"`` (from the monitor's name). ``baseline``: training stops if
    the monitor does not beat it within ``patience`` epochs. ``restore_best_weights``:
    at the end of training (stopped early or not) the model gets the weights of the
    best epoch. ``start_from_epoch``: epochs of warm-up before monitoring starts.
    After training, ``stopped_epoch`` is the epoch index where it stopped (0: it did
    not), ``best`` the best value and ``best_epoch`` its epoch.
    """

    def __init__(self, monitor="val_loss", min_delta=0, patience=0, verbose=0, mode="auto",
                 baseline=None, restore_best_weights=False, start_from_epoch=0):
        super().__init__()
        self.monitor = monitor
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.min_delta = abs(min_delta)
        self.restore_best_weights = restore_best_weights
        self.start_from_epoch = start_from_epoch
        self.mode = check_mode(mode, "EarlyStopping")
        self._direction = None
        self._reset()

    def _reset(self):
        self.wait = 0
        self.stopped_epoch = 0
        self.best = None
        self.best_weights = None
        self.best_epoch = 0

    def on_train_begin(self, logs=None):
        self._reset()

    def _is_improvement(self, value, reference):
        if reference is None:
            return True
        if self._direction == "min":
            return value + self.min_delta < reference
        return value - self.min_delta > reference

    def get_monitor_value(self, logs):
        value = (logs or {}).get(self.monitor)
        if value is None:
            warnings.warn(
                f"Early stopping conditioned on metric `{self.monitor}` which is not "
                f"available. Available metrics are: {','.join(list(logs or {}))}",
                stacklevel=3)
        return value

    def on_epoch_end(self, epoch, logs=None):
        if self._direction is None:  # resolved once the model's metrics exist
            self._direction = resolve_mode(self.mode, self.monitor, self.model, "EarlyStopping")
        current = self.get_monitor_value(logs)
        if current is None or epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights = self.model.get_weights()
            self.best_epoch = epoch
        self.wait += 1
        if self._is_improvement(current, self.best):
            self.best = current
            self.best_epoch = epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self._is_improvement(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose > 0:
            print_line(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                print_line("Restoring model weights from the end of the best epoch: "
                       f"{self.best_epoch + 1}.")
            self.model.set_weights(self.best_weights)


@CALLBACKS.register()
class ReduceLROnPlateau(Callback):
    """Multiplies the learning rate by ``factor`` when ``monitor`` plateaus.

    After ``patience`` epochs without an improvement larger than ``min_delta`` the
    optimizer's ``learning_rate`` becomes ``max(lr * factor, min_lr)``, then
    ``cooldown`` epochs pass before counting again. Adds ``"learning_rate"`` to the
    epoch logs.
    """

    def __init__(self, monitor="val_loss", factor=0.1, patience=10, verbose=0, mode="auto",
                 min_delta=1e-4, cooldown=0, min_lr=0.0, **kwargs):
        super().__init__()
        if factor >= 1.0:
            raise ValueError("ReduceLROnPlateau does not support a factor >= 1.0. "
                             f"Received factor={factor}")
        if kwargs:
            raise TypeError(f"ReduceLROnPlateau got unexpected arguments: {sorted(kwargs)}")
        self.monitor = monitor
        self.factor = factor
        self.min_lr = min_lr
        self.min_delta = min_delta
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.mode = mode
        self._reset()

    def _reset(self):
        self._direction = resolve_mode(self.mode, self.monitor, self.model, "ReduceLROnPlateau")
        self.mode = self.mode if self.mode in MODES else "auto"
        self.best = np.inf if self._direction == "min" else -np.inf
        self.cooldown_counter = 0
        self.wait = 0

    def monitor_op(self, value, best):
        if self._direction == "min":
            return value < best - self.min_delta
        return value > best + self.min_delta

    def in_cooldown(self):
        return self.cooldown_counter > 0

    def on_train_begin(self, logs=None):
        self._reset()

    def on_epoch_end(self, epoch, logs=None):
        logs = {} if logs is None else logs
        logs["learning_rate"] = _get_lr(self.model)
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn(
                f"Learning rate reduction is conditioned on metric `{self.monitor}` which is "
                f"not available. Available metrics are: {','.join(list(logs))}.", stacklevel=2)
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self.monitor_op(current, self.best):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience:
                old_lr = _get_lr(self.model)
                if old_lr > np.float32(self.min_lr):
                    new_lr = max(old_lr * self.factor, self.min_lr)
                    self.model.optimizer.learning_rate = new_lr
                    if self.verbose > 0:
                        print_line(f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing learning "
                               f"rate to {new_lr}.")
                    self.cooldown_counter = self.cooldown
                    self.wait = 0


def _takes_lr(schedule):
    """Whether ``schedule`` accepts ``(epoch, lr)``; None when it cannot be told."""
    try:
        signature = inspect.signature(schedule)
    except (TypeError, ValueError):
        return None
    try:
        signature.bind(0, 0.0)
        return True
    except TypeError:
        return False


@CALLBACKS.register()
class LearningRateScheduler(Callback):
    """Sets the learning rate at each epoch start to ``schedule(epoch, lr)``.

    ``schedule(epoch)`` (one argument) is accepted too. Adds ``"learning_rate"`` to
    the epoch logs.
    """

    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule = schedule
        self.verbose = verbose
        self._takes_lr = _takes_lr(schedule)

    def on_epoch_begin(self, epoch, logs=None):
        optimizer = getattr(self.model, "optimizer", None)
        if not hasattr(optimizer, "learning_rate"):
            raise ValueError('Optimizer must have a "learning_rate" attribute.')
        if self._takes_lr is None:
            try:
                learning_rate = self.schedule(epoch, _get_lr(self.model))
            except TypeError:
                learning_rate = self.schedule(epoch)
        elif self._takes_lr:
            learning_rate = self.schedule(epoch, _get_lr(self.model))
        else:
            learning_rate = self.schedule(epoch)
        if not isinstance(learning_rate, numbers.Real) or isinstance(learning_rate, bool):
            raise ValueError("The output of the `schedule` function should be a float. "
                             f"Got: {learning_rate!r}")
        optimizer.learning_rate = float(learning_rate)
        if self.verbose > 0:
            print_line(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to "
                   f"{float(learning_rate)}.")

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["learning_rate"] = _get_lr(self.model)


@CALLBACKS.register()
class TerminateOnNaN(Callback):
    """Stops training as soon as a batch's ``loss`` is NaN or infinite."""

    def on_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is not None and not np.isfinite(loss):
            print_line(f"Batch {batch}: Invalid loss, terminating training")
            self.model.stop_training = True

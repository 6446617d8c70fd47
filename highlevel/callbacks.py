"""Training callbacks, with Keras 3's names, arguments, defaults and semantics.

The training loop drives a :class:`CallbackList` exactly as Keras 3 does::

    callbacks = CallbackList(callbacks, add_history=True, add_progbar=verbose != 0,
                             model=model, verbose=verbose, epochs=epochs,
                             steps=steps_per_epoch)
    callbacks.on_train_begin(logs)
    for epoch in range(initial_epoch, epochs):
        callbacks.on_epoch_begin(epoch, logs)
        for batch in ...:
            callbacks.on_train_batch_begin(batch, logs)
            ...
            callbacks.on_train_batch_end(batch, logs)   # running averages, Python floats
        ...  # validation: on_test_begin / on_test_batch_* / on_test_end
        callbacks.on_epoch_end(epoch, logs)             # includes val_* entries
        if model.stop_training: break
    callbacks.on_train_end(logs)

Callbacks talk to the model through a small duck-typed surface: ``stop_training``,
``get_weights()`` / ``set_weights()``, ``optimizer.learning_rate`` (a settable float),
``save(path)`` / ``save_weights(path)``, ``history``, and for :class:`BackupAndRestore`
``_restore_from_checkpoint(path)`` / ``_initial_epoch_from_backup``.

Every callback class is registered by class name in :data:`CALLBACKS`; :func:`get`
resolves a name, a ``{"class_name", "config"}`` dict or an instance.
"""

import csv
import inspect
import json
import numbers
import os
import sys
import warnings

import numpy as np

from ..backends.registry import Registry
from .progress import Progbar

__all__ = [
    "CALLBACKS", "Callback", "CallbackList", "History", "ProgbarLogger", "EarlyStopping",
    "ReduceLROnPlateau", "LearningRateScheduler", "CSVLogger", "TerminateOnNaN",
    "LambdaCallback", "ModelCheckpoint", "BackupAndRestore", "get", "deserialize",
]

CALLBACKS = Registry("callback")


def _print(message):
    sys.stdout.write(message + "\n")
    sys.stdout.flush()


_MAX_HINTS = ("acc", "auc", "precision", "recall", "f1_score", "fmeasure")


def _resolve_mode(mode, monitor, model=None, owner="callback"):
    """``"min"`` or ``"max"`` for ``mode`` (``"auto"`` decides from the monitor's name).

    In auto mode a metric object of the model named like the monitor with a
    ``_direction`` of ``"up"``/``"down"`` decides; otherwise names containing ``acc``,
    ``auc``, ``precision`` or ``recall`` (or an F1 score) are maximized, the rest minimized.
    """
    if mode not in ("auto", "min", "max"):
        warnings.warn(f"{owner} mode {mode!r} is unknown, fallback to auto mode.", stacklevel=3)
        mode = "auto"
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
class Callback:
    """Base class: every hook is a no-op; subclasses override the ones they need.

    Attributes:
        params: dict set by the training loop (``verbose``, ``epochs``, ``steps``).
        model: the model being trained (set with :meth:`set_model`).
    """

    params = None
    _model = None

    def __init__(self):
        self.params = {}
        self._model = None
        self.validation_data = None

    def set_params(self, params):
        self.params = params

    def set_model(self, model):
        self._model = model

    @property
    def model(self):
        return self._model

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    # Global hooks: ``logs`` is a dict of Python floats (or None).
    def on_train_begin(self, logs=None): ...
    def on_train_end(self, logs=None): ...
    def on_epoch_begin(self, epoch, logs=None): ...
    def on_epoch_end(self, epoch, logs=None): ...
    def on_test_begin(self, logs=None): ...
    def on_test_end(self, logs=None): ...
    def on_predict_begin(self, logs=None): ...
    def on_predict_end(self, logs=None): ...

    # Batch hooks. The train-batch hooks forward to the legacy on_batch_* names.
    def on_batch_begin(self, batch, logs=None): ...
    def on_batch_end(self, batch, logs=None): ...

    def on_train_batch_begin(self, batch, logs=None):
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch, logs=None):
        self.on_batch_end(batch, logs=logs)

    def on_test_batch_begin(self, batch, logs=None): ...
    def on_test_batch_end(self, batch, logs=None): ...
    def on_predict_batch_begin(self, batch, logs=None): ...
    def on_predict_batch_end(self, batch, logs=None): ...


# Batch hook -> the names whose override means a callback must receive it.
_BATCH_HOOKS = {
    "on_train_batch_begin": ("on_train_batch_begin", "on_batch_begin"),
    "on_train_batch_end": ("on_train_batch_end", "on_batch_end"),
    "on_test_batch_begin": ("on_test_batch_begin",),
    "on_test_batch_end": ("on_test_batch_end",),
    "on_predict_batch_begin": ("on_predict_batch_begin",),
    "on_predict_batch_end": ("on_predict_batch_end",),
}


def _implements(callback, names):
    for name in names:
        if name in vars(callback) or getattr(type(callback), name) is not getattr(Callback, name):
            return True
    return False


def _flatten(callbacks):
    if callbacks is None:
        return []
    if isinstance(callbacks, Callback):
        return [callbacks]
    flat = []
    for item in callbacks:
        flat.extend(_flatten(item))
    return flat


class CallbackList(Callback):
    """Calls a list of callbacks; what the training loop talks to.

    Args:
        callbacks: a callback, a (nested) list of callbacks, or None.
        add_history: append a :class:`History` unless one is in ``callbacks``.
        add_progbar: append a :class:`ProgbarLogger` unless one is in ``callbacks``.
        model: the model, passed to every callback's ``set_model`` (and given the
            History as ``model.history``).
        **params: passed to every callback's ``set_params`` (``verbose``, ``epochs``,
            ``steps``).

    Batch hooks only reach the callbacks that override them, so a plain ``fit`` pays
    for one loop over a short list per batch.
    """

    def __init__(self, callbacks=None, add_history=False, add_progbar=False, model=None,
                 **params):
        super().__init__()
        self.callbacks = _flatten(callbacks)
        self._history = next((c for c in self.callbacks if isinstance(c, History)), None)
        self._progbar = next((c for c in self.callbacks if isinstance(c, ProgbarLogger)), None)
        if self._history is None and add_history:
            self._history = History()
            self.callbacks.append(self._history)
        if self._progbar is None and add_progbar:
            self._progbar = ProgbarLogger()
            self.callbacks.append(self._progbar)
        self._index_hooks()
        if model is not None:
            self.set_model(model)
        if params:
            self.set_params(params)

    def _index_hooks(self):
        self._batch_hooks = {
            hook: [getattr(c, hook) for c in self.callbacks if _implements(c, names)]
            for hook, names in _BATCH_HOOKS.items()
        }

    def append(self, callback):
        self.callbacks.append(callback)
        self._index_hooks()

    def set_params(self, params):
        self.params = params
        for callback in self.callbacks:
            callback.set_params(params)

    def set_model(self, model):
        super().set_model(model)
        if self._history is not None and model is not None:
            model.history = self._history
        for callback in self.callbacks:
            callback.set_model(model)

    def _call(self, hook, logs):
        logs = {} if logs is None else logs
        for callback in self.callbacks:
            getattr(callback, hook)(logs)

    def _call_epoch(self, hook, epoch, logs):
        logs = {} if logs is None else logs
        for callback in self.callbacks:
            getattr(callback, hook)(epoch, logs)

    def on_train_begin(self, logs=None):
        self._call("on_train_begin", logs)

    def on_train_end(self, logs=None):
        self._call("on_train_end", logs)

    def on_test_begin(self, logs=None):
        self._call("on_test_begin", logs)

    def on_test_end(self, logs=None):
        self._call("on_test_end", logs)

    def on_predict_begin(self, logs=None):
        self._call("on_predict_begin", logs)

    def on_predict_end(self, logs=None):
        self._call("on_predict_end", logs)

    def on_epoch_begin(self, epoch, logs=None):
        self._call_epoch("on_epoch_begin", epoch, logs)

    def on_epoch_end(self, epoch, logs=None):
        self._call_epoch("on_epoch_end", epoch, logs)

    def on_batch_begin(self, batch, logs=None):
        self.on_train_batch_begin(batch, logs)

    def on_batch_end(self, batch, logs=None):
        self.on_train_batch_end(batch, logs)

    def on_train_batch_begin(self, batch, logs=None):
        for hook in self._batch_hooks["on_train_batch_begin"]:
            hook(batch, logs)

    def on_train_batch_end(self, batch, logs=None):
        for hook in self._batch_hooks["on_train_batch_end"]:
            hook(batch, logs)

    def on_test_batch_begin(self, batch, logs=None):
        for hook in self._batch_hooks["on_test_batch_begin"]:
            hook(batch, logs)

    def on_test_batch_end(self, batch, logs=None):
        for hook in self._batch_hooks["on_test_batch_end"]:
            hook(batch, logs)

    def on_predict_batch_begin(self, batch, logs=None):
        for hook in self._batch_hooks["on_predict_batch_begin"]:
            hook(batch, logs)

    def on_predict_batch_end(self, batch, logs=None):
        for hook in self._batch_hooks["on_predict_batch_end"]:
            hook(batch, logs)


@CALLBACKS.register()
class History(Callback):
    """Records the epoch logs: ``history`` maps each log key to a list of values.

    ``fit`` returns it and sets it as ``model.history``; ``epoch`` lists the epoch indices.
    """

    def __init__(self):
        super().__init__()
        self.history = {}
        self.epoch = []

    def on_train_begin(self, logs=None):
        self.epoch = []

    def on_epoch_end(self, epoch, logs=None):
        self.epoch.append(epoch)
        for key, value in (logs or {}).items():
            self.history.setdefault(key, []).append(value)
        if self.model is not None:
            self.model.history = self


@CALLBACKS.register()
class ProgbarLogger(Callback):
    """Prints progress to stdout (see :mod:`lamina.highlevel.progress`).

    ``verbose`` comes from ``params``: 1 (or ``"auto"``) a live bar per epoch (one line
    when stdout is not a terminal), 2 one line per epoch, 0 nothing. During ``fit`` the
    validation pass is not shown separately: its ``val_*`` results end the epoch's line.
    """

    def __init__(self):
        super().__init__()
        self.seen = 0
        self.progbar = None
        self.target = None
        self.verbose = 1
        self.epochs = 1
        self._called_in_fit = False

    def set_params(self, params):
        super().set_params(params)
        verbose = params.get("verbose", 1)
        self.verbose = 1 if verbose == "auto" else int(verbose)
        self.epochs = params.get("epochs", 1) or 1
        self.target = params.get("steps")

    def _reset_progbar(self):
        self.seen = 0
        self.progbar = None

    def _maybe_init_progbar(self):
        if self.progbar is None:
            self.progbar = Progbar(self.target, verbose=self.verbose, unit_name="step")

    def _update_progbar(self, batch, logs):
        if self.verbose == 0:
            return
        if self.progbar is None:
            self._maybe_init_progbar()
        self.seen = batch + 1
        self.progbar.update(self.seen, logs, finalize=False)

    def _finalize_progbar(self, logs):
        if self.verbose == 0:
            return
        self._maybe_init_progbar()
        target = self.target if self.target is not None else self.seen
        self.progbar.update(target, logs, finalize=True)

    def on_train_begin(self, logs=None):
        self._called_in_fit = True

    def on_train_end(self, logs=None):
        self._called_in_fit = False
        if self.progbar is not None:
            self.progbar.close()

    def on_epoch_begin(self, epoch, logs=None):
        self._reset_progbar()
        if self.verbose and self.epochs > 1:
            _print(f"Epoch {epoch + 1}/{self.epochs}")
        if self.verbose:
            self._maybe_init_progbar()

    def on_train_batch_end(self, batch, logs=None):
        self._update_progbar(batch, logs)

    def on_epoch_end(self, epoch, logs=None):
        self._finalize_progbar(logs)

    def on_test_begin(self, logs=None):
        if not self._called_in_fit:
            self._reset_progbar()
            if self.verbose:
                self._maybe_init_progbar()

    def on_test_batch_end(self, batch, logs=None):
        if not self._called_in_fit:
            self._update_progbar(batch, logs)

    def on_test_end(self, logs=None):
        if not self._called_in_fit:
            self._finalize_progbar(logs)

    def on_predict_begin(self, logs=None):
        self._reset_progbar()
        if self.verbose:
            self._maybe_init_progbar()

    def on_predict_batch_end(self, batch, logs=None):
        self._update_progbar(batch, None)

    def on_predict_end(self, logs=None):
        self._finalize_progbar(None)


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
        if mode not in ("auto", "min", "max"):
            warnings.warn(f"EarlyStopping mode {mode!r} is unknown, fallback to auto mode.",
                          stacklevel=2)
            mode = "auto"
        self.mode = mode
        self._direction = None
        self.wait = 0
        self.stopped_epoch = 0
        self.best = None
        self.best_weights = None
        self.best_epoch = 0

    def on_train_begin(self, logs=None):
        self.wait = 0
        self.stopped_epoch = 0
        self.best = None
        self.best_weights = None
        self.best_epoch = 0

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
            self._direction = _resolve_mode(self.mode, self.monitor, self.model, "EarlyStopping")
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
            _print(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                _print("Restoring model weights from the end of the best epoch: "
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
        self._direction = _resolve_mode(self.mode, self.monitor, self.model, "ReduceLROnPlateau")
        self.mode = self.mode if self.mode in ("auto", "min", "max") else "auto"
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
                        _print(f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing learning "
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
            _print(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to "
                   f"{float(learning_rate)}.")

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["learning_rate"] = _get_lr(self.model)


@CALLBACKS.register()
class CSVLogger(Callback):
    """Streams the epoch logs to a CSV file: ``epoch`` first, then the sorted log keys.

    The columns are fixed by the first epoch's logs (plus a ``val_`` column for each
    key when that epoch has no validation entries, as in Keras); a missing value is
    written as ``NA``. ``append=True`` continues an existing file (without a second
    header).
    """

    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        self.sep = separator
        self.filename = os.fspath(filename)
        self.append = append
        self.writer = None
        self.keys = None
        self.append_header = True
        self.csv_file = None

    def on_train_begin(self, logs=None):
        mode = "w"
        self.append_header = True
        if self.append:
            if os.path.exists(self.filename):
                with open(self.filename, "r", newline="") as f:
                    self.append_header = not bool(len(f.readline()))
            mode = "a"
        if self.csv_file is not None and not self.csv_file.closed:
            self.csv_file.close()
        self.csv_file = open(self.filename, mode, newline="")
        self.writer = None
        self.keys = None

    @staticmethod
    def _handle_value(value):
        if isinstance(value, str):
            return value
        if isinstance(value, np.ndarray) and value.ndim == 0:
            return value.item()
        if hasattr(value, "__iter__"):
            return f"[{', '.join(map(str, value))}]"
        return value

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        if self.keys is None:
            self.keys = sorted(logs)
            # With validation_freq > 1 the first epoch has no val_* entries: add their
            # columns now, as Keras does, since the header cannot change later.
            if self.keys and not any(key.startswith("val_") for key in self.keys):
                self.keys.extend(["val_" + key for key in self.keys])
        if self.writer is None:
            dialect = type("_Dialect", (csv.excel,), {"delimiter": self.sep})
            self.writer = csv.DictWriter(self.csv_file, fieldnames=["epoch"] + self.keys,
                                         dialect=dialect, extrasaction="ignore")
            if self.append_header:
                self.writer.writeheader()
        row = {"epoch": epoch}
        row.update((key, self._handle_value(logs.get(key, "NA"))) for key in self.keys)
        self.writer.writerow(row)
        self.csv_file.flush()

    def on_train_end(self, logs=None):
        if self.csv_file is not None and not self.csv_file.closed:
            self.csv_file.close()
        self.writer = None


@CALLBACKS.register()
class TerminateOnNaN(Callback):
    """Stops training as soon as a batch's ``loss`` is NaN or infinite."""

    def on_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is not None and not np.isfinite(loss):
            _print(f"Batch {batch}: Invalid loss, terminating training")
            self.model.stop_training = True


@CALLBACKS.register()
class LambdaCallback(Callback):
    """A callback from plain functions, e.g. ``LambdaCallback(on_epoch_end=lambda
    epoch, logs: print(epoch))``. Hooks taking an epoch or batch get ``(index, logs)``,
    the others ``(logs)``. Any other hook (``on_test_end=...``) can be passed by name.
    """

    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_train_begin=None,
                 on_train_end=None, on_train_batch_begin=None, on_train_batch_end=None,
                 **kwargs):
        super().__init__()
        hooks = dict(on_epoch_begin=on_epoch_begin, on_epoch_end=on_epoch_end,
                     on_train_begin=on_train_begin, on_train_end=on_train_end,
                     on_train_batch_begin=on_train_batch_begin,
                     on_train_batch_end=on_train_batch_end, **kwargs)
        for name, function in hooks.items():
            if function is None:
                continue
            if not (name.startswith("on_") and callable(getattr(Callback, name, None))):
                raise ValueError(f"LambdaCallback got an unknown hook {name!r}")
            setattr(self, name, function)


@CALLBACKS.register()
class ModelCheckpoint(Callback):
    """Saves the model (or only its weights) during training.

    ``filepath`` may hold ``str.format`` placeholders filled with ``epoch`` (1-based),
    ``batch`` (1-based, when saving every N batches) and the logs, e.g.
    ``"ckpt-{epoch:02d}-{val_loss:.2f}.h5"``. ``save_best_only``: save only when
    ``monitor`` improves (``mode`` as in :class:`EarlyStopping`) on ``best``, which
    starts at ``initial_value_threshold``. ``save_freq``: ``"epoch"`` or an integer
    number of batches. Calls ``model.save_weights(path)`` or ``model.save(path)``.
    """

    def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False,
                 save_weights_only=False, mode="auto", save_freq="epoch",
                 initial_value_threshold=None):
        super().__init__()
        self.filepath = os.fspath(filepath)
        self.monitor = monitor
        self.verbose = verbose
        self.save_best_only = save_best_only
        self.save_weights_only = save_weights_only
        if save_freq != "epoch" and (not isinstance(save_freq, int) or save_freq <= 0):
            raise ValueError(f"Unrecognized save_freq: {save_freq}. Expected save_freq are "
                             "'epoch' or positive integer values")
        self.save_freq = save_freq
        self._direction = _resolve_mode(mode, monitor, owner="ModelCheckpoint")
        self.mode = mode if mode in ("auto", "min", "max") else "auto"
        if initial_value_threshold is not None:
            self.best = initial_value_threshold
        else:
            self.best = np.inf if self._direction == "min" else -np.inf
        self._current_epoch = 0
        self._batches_seen_since_last_saving = 0
        self._last_batch_seen = 0

    def monitor_op(self, value, best):
        return value < best if self._direction == "min" else value > best

    def on_epoch_begin(self, epoch, logs=None):
        self._current_epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if self._should_save_on_batch(batch):
            self._save_model(self._current_epoch, batch, logs)

    def on_epoch_end(self, epoch, logs=None):
        if self.save_freq == "epoch":
            self._save_model(epoch, None, logs)

    def _should_save_on_batch(self, batch):
        if self.save_freq == "epoch":
            return False
        if batch <= self._last_batch_seen:  # a new epoch
            added = batch + 1
        else:
            added = batch - self._last_batch_seen
        self._batches_seen_since_last_saving += added
        self._last_batch_seen = batch
        if self._batches_seen_since_last_saving >= self.save_freq:
            self._batches_seen_since_last_saving = 0
            return True
        return False

    def _get_file_path(self, epoch, batch, logs):
        try:
            if batch is None or "batch" in logs:
                return self.filepath.format(epoch=epoch + 1, **logs)
            return self.filepath.format(epoch=epoch + 1, batch=batch + 1, **logs)
        except KeyError as error:
            raise KeyError(f'Failed to format this callback filepath: "{self.filepath}". '
                           f"Reason: {error}") from None

    def _write(self, filepath):
        if os.path.isdir(filepath):
            raise IOError("Please specify a non-directory filepath for ModelCheckpoint. "
                          f"Filepath used is an existing directory: {filepath}")
        if self.save_weights_only:
            self.model.save_weights(filepath)
        else:
            self.model.save(filepath)

    def _save_model(self, epoch, batch, logs):
        logs = logs or {}
        filepath = self._get_file_path(epoch, batch, logs)
        dirname = os.path.dirname(filepath)
        if dirname and not os.path.exists(dirname):
            os.makedirs(dirname, exist_ok=True)
        if not self.save_best_only:
            if self.verbose > 0:
                _print(f"\nEpoch {epoch + 1}: saving model to {filepath}")
            self._write(filepath)
            return
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn(f"Can save best model only with {self.monitor} available, skipping.",
                          stacklevel=2)
            return
        if np.ndim(current) > 0:
            warnings.warn(f"Can save best model only when `monitor` is a scalar value. "
                          f"Received: {current}. Falling back to `save_best_only=False`.",
                          stacklevel=2)
            self._write(filepath)
            return
        if self.monitor_op(current, self.best):
            if self.verbose > 0:
                _print(f"\nEpoch {epoch + 1}: {self.monitor} improved from {self.best:.5f} "
                       f"to {current:.5f}, saving model to {filepath}")
            self.best = current
            self._write(filepath)
        elif self.verbose > 0:
            _print(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from {self.best:.5f}")


@CALLBACKS.register()
class BackupAndRestore(Callback):
    """Backs training up so an interrupted ``fit`` resumes where it stopped.

    Contract with the model and the training loop:

    * Backup (at each epoch end, or every ``save_freq`` batches when it is an integer):
      ``model.save(os.path.join(backup_dir, "latest.h5"))`` (full model: weights,
      optimizer state), then ``training_state.json`` with ``{"epoch": E, "batch": B}``
      where ``E`` is the index of the last *finished* epoch (-1 when the backup was
      made inside the first epoch) and ``B`` the last batch seen (null at an epoch end).
      The JSON is written atomically after the model, so its presence means the model
      file is complete.
    * Restore (``on_train_begin``): when the JSON exists, calls
      ``model._restore_from_checkpoint(path_to_latest_h5)`` (loads weights and optimizer
      state into the model in place) and sets ``model._initial_epoch_from_backup =
      E + 1``. The training loop reads (and removes) that attribute right after
      ``on_train_begin`` and starts from that epoch, skipping the finished ones.
    * Cleanup: when training ends normally (``on_train_end``) and ``delete_checkpoint``
      is true, both files are deleted (and ``backup_dir`` when left empty). An
      exception in ``fit`` skips ``on_train_end``, so the backup survives the crash.
    """

    MODEL_FILE = "latest.h5"
    STATE_FILE = "training_state.json"

    def __init__(self, backup_dir, save_freq="epoch", delete_checkpoint=True):
        super().__init__()
        if not backup_dir:
            raise ValueError("Empty `backup_dir` argument passed")
        if save_freq != "epoch" and (not isinstance(save_freq, int) or save_freq <= 0):
            raise ValueError(f"Invalid value for argument `save_freq`. Received: {save_freq}. "
                             "Expected either 'epoch' or a positive integer value.")
        self.backup_dir = os.fspath(backup_dir)
        self.save_freq = save_freq
        self.delete_checkpoint = delete_checkpoint
        self._model_path = os.path.join(self.backup_dir, self.MODEL_FILE)
        self._state_path = os.path.join(self.backup_dir, self.STATE_FILE)
        self._current_epoch = 0
        self._batches_seen_since_last_saving = 0
        self._last_batch_seen = -1

    def on_train_begin(self, logs=None):
        if not os.path.exists(self._state_path):
            return
        with open(self._state_path, "r") as f:
            state = json.load(f)
        last_epoch = int(state["epoch"])
        if not os.path.exists(self._model_path):
            raise FileNotFoundError(f"Backup state {self._state_path} found but the model "
                                    f"file {self._model_path} is missing")
        self.model._restore_from_checkpoint(self._model_path)
        self.model._initial_epoch_from_backup = last_epoch + 1
        self._current_epoch = last_epoch + 1

    def on_epoch_begin(self, epoch, logs=None):
        self._current_epoch = epoch
        self._last_batch_seen = -1

    def on_train_batch_end(self, batch, logs=None):
        if self.save_freq == "epoch":
            return
        self._batches_seen_since_last_saving += batch - self._last_batch_seen
        self._last_batch_seen = batch
        if self._batches_seen_since_last_saving >= self.save_freq:
            self._batches_seen_since_last_saving = 0
            self._backup(self._current_epoch - 1, batch)

    def on_epoch_end(self, epoch, logs=None):
        self._current_epoch = epoch + 1
        if self.save_freq == "epoch":
            self._backup(epoch, None)

    def _backup(self, last_finished_epoch, batch):
        os.makedirs(self.backup_dir, exist_ok=True)
        self.model.save(self._model_path)
        tmp = self._state_path + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"epoch": last_finished_epoch, "batch": batch}, f)
        os.replace(tmp, self._state_path)

    def on_train_end(self, logs=None):
        if not self.delete_checkpoint:
            return
        for path in (self._state_path, self._model_path):
            if os.path.exists(path):
                os.remove(path)
        try:
            os.rmdir(self.backup_dir)
        except OSError:  # missing, or holds other files
            pass


def get(identifier, custom_objects=None):
    """A callback from a class name, a ``{"class_name", "config"}`` dict, a class or an
    instance (returned as is); ``None`` gives ``None``. Unknown names raise a
    ``ValueError`` listing the known callbacks."""
    if identifier is None or isinstance(identifier, Callback):
        return identifier
    if isinstance(identifier, str):
        return CALLBACKS.lookup(identifier, custom_objects)()
    if isinstance(identifier, dict):
        if "class_name" not in identifier:
            raise ValueError(f"Could not interpret callback config: {identifier!r}")
        cls = CALLBACKS.lookup(identifier["class_name"], custom_objects)
        return cls.from_config(dict(identifier.get("config") or {}))
    if isinstance(identifier, type) and issubclass(identifier, Callback):
        return identifier()
    raise ValueError(f"Could not interpret callback identifier: {identifier!r}")


def deserialize(config, custom_objects=None):
    """A callback from a ``{"class_name", "config"}`` dict."""
    return get(config, custom_objects)

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

This module holds the loop-facing callbacks (:class:`CallbackList`, :class:`History`,
:class:`ProgbarLogger`, :class:`TerminateOnNaN`, :class:`LambdaCallback`) and re-exports
the base class (:mod:`.callback_base`), the monitoring callbacks
(:mod:`.monitor_callbacks`) and the file-writing ones (:mod:`.checkpoint_callbacks`).
"""

import numpy as np

from .callback import CALLBACKS, Callback, _print
from .checkpoint import BackupAndRestore, CSVLogger, ModelCheckpoint
from .monitor import EarlyStopping, LearningRateScheduler, ReduceLROnPlateau
from .progbar import Progbar

__all__ = [
    "CALLBACKS", "Callback", "CallbackList", "History", "ProgbarLogger", "EarlyStopping",
    "ReduceLROnPlateau", "LearningRateScheduler", "CSVLogger", "TerminateOnNaN",
    "LambdaCallback", "ModelCheckpoint", "BackupAndRestore", "get", "deserialize",
]


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

    def _call_batch(self, hook, batch, logs):
        for function in self._batch_hooks[hook]:
            function(batch, logs)

    def on_train_batch_begin(self, batch, logs=None):
        self._call_batch("on_train_batch_begin", batch, logs)

    def on_train_batch_end(self, batch, logs=None):
        self._call_batch("on_train_batch_end", batch, logs)

    def on_test_batch_begin(self, batch, logs=None):
        self._call_batch("on_test_batch_begin", batch, logs)

    def on_test_batch_end(self, batch, logs=None):
        self._call_batch("on_test_batch_end", batch, logs)

    def on_predict_batch_begin(self, batch, logs=None):
        self._call_batch("on_predict_batch_begin", batch, logs)

    def on_predict_batch_end(self, batch, logs=None):
        self._call_batch("on_predict_batch_end", batch, logs)


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
    """Prints progress to stdout (see :mod:`lamina.highlevel.callbacks.progbar`).

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

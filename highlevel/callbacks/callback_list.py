"""The :class:`CallbackList` the training loop drives, exactly as Keras 3 does::

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
"""

from ..distribution import training_hook as distribution_hook
from .callback import Callback
from .checkpoint import BackupAndRestore, ModelCheckpoint
from .csv_logger import CSVLogger
from .history import History
from .progbar import ProgbarLogger
from .tensorboard import TensorBoard

# Callbacks whose work is a side effect (output, files): in a data-parallel job they run
# on rank 0 only; the others (History, EarlyStopping, ...) run on every process, on the
# same reduced logs, and rank 0's decisions are broadcast after each epoch.
RANK_ZERO_ONLY = (ProgbarLogger, CSVLogger, ModelCheckpoint, BackupAndRestore, TensorBoard)


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
        self._distribution = distribution_hook.current()
        if self._distribution is not None and self._distribution.communicator.rank != 0:
            self.callbacks = [c for c in self.callbacks if not isinstance(c, RANK_ZERO_ONLY)]
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
        if self._distribution is not None and getattr(self.model, "optimizer", None):
            self._distribution.sync_decisions(self.model)

    def on_batch_begin(self, batch, logs=None):
        self.on_train_batch_begin(batch, logs)

    def on_batch_end(self, batch, logs=None):
        self.on_train_batch_end(batch, logs)

    def _call_batch(self, hook, batch, logs):
        logs = {} if logs is None else logs
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

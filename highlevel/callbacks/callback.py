"""The :class:`Callback` base class and the callback registry.

A callback overrides the hooks it needs; the training loop calls them through a
:class:`~lamina.highlevel.callbacks.callbacks.CallbackList`. Every callback class is registered by
class name in :data:`CALLBACKS` (resolved by :func:`lamina.highlevel.callbacks.callbacks.get`).
"""

import sys

from ...backends.registry import Registry

CALLBACKS = Registry("callback")


def _print(message):
    sys.stdout.write(message + "\n")
    sys.stdout.flush()


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


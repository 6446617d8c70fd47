"""The :class:`Callback` base class, the callback registry and its lookup (``get``).

A callback overrides the hooks it needs; the training loop calls them through a
:class:`~lamina.highlevel.callbacks.callback_list.CallbackList`. Callbacks talk to the model
through a small duck-typed surface: ``stop_training``, ``get_weights()`` /
``set_weights()``, ``optimizer.learning_rate`` (a settable float), ``save(path)`` /
``save_weights(path)``, ``history``, and for ``BackupAndRestore``
``restore_from_checkpoint(path, initial_epoch)``.

Every callback class is registered by class name in :data:`CALLBACKS`; :func:`get`
resolves a name, a ``{"class_name", "config"}`` dict or an instance.
"""

import logging
import sys

from ...backends import config
from ...backends.registry import Registry

CALLBACKS = Registry("callback")


def print_line(message):
    """Write ``message`` and a newline to ``sys.stdout`` (looked up now) and flush; with
    interactive logging disabled (``lamina.config.disable_interactive_logging()``), log it
    at INFO level to the ``"lamina"`` logger instead, as Keras' ``io_utils.print_msg``."""
    if not config.is_interactive_logging_enabled():
        logging.getLogger("lamina").info(message)
        return
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

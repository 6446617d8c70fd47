"""Callbacks driven the way the training loop drives them, without a real model.

:class:`FakeModel` exposes the duck-typed surface the callbacks use (``stop_training``,
``get/set_weights``, ``optimizer.learning_rate``, ``save``, ``save_weights``,
``restore_from_checkpoint``) and records what was done to it;
:func:`fit` drives a list of callbacks like ``Model.fit`` over given epoch logs.
"""

import numpy as np

from lamina.highlevel import callbacks as cb


class FakeOptimizer:
    """An optimizer with a settable float learning rate."""

    def __init__(self, learning_rate=0.01):
        self._lr = float(learning_rate)

    @property
    def learning_rate(self):
        return self._lr

    @learning_rate.setter
    def learning_rate(self, value):
        self._lr = float(value)


class FakeModel:
    """Weights are one array holding the index of the epoch that last 'trained' them."""

    def __init__(self, learning_rate=0.01):
        self.stop_training = False
        self.optimizer = FakeOptimizer(learning_rate)
        self.weights = [np.array([-1.0])]
        self.saved = []  # ("save" | "save_weights", path)
        self.restored_from = None
        self.initial_epoch = None  # the epoch restore_from_checkpoint resumes from

    def get_weights(self):
        return [w.copy() for w in self.weights]

    def set_weights(self, weights):
        self.weights = [np.array(w, copy=True) for w in weights]

    def save(self, filepath):
        self.saved.append(("save", filepath))
        with open(filepath, "w") as f:
            f.write(f"weights={self.weights[0][0]}")

    def save_weights(self, filepath):
        self.saved.append(("save_weights", filepath))

    def restore_from_checkpoint(self, path, initial_epoch=None):
        self.restored_from = path
        self.initial_epoch = initial_epoch


def fit(callbacks, epoch_logs, model=None, steps=3, batch_logs=None, verbose=0,
        crash_at_epoch=None):
    """Drive ``callbacks`` like ``Model.fit``: one ``epoch_logs`` dict per epoch."""
    model = FakeModel() if model is None else model
    epochs = len(epoch_logs)
    callbacks = cb.CallbackList(callbacks, add_history=True, add_progbar=verbose != 0,
                                model=model, verbose=verbose, epochs=epochs, steps=steps)
    model.stop_training = False
    callbacks.on_train_begin({})
    start = getattr(model, "initial_epoch", None) or 0
    for epoch in range(start, epochs):
        if epoch == crash_at_epoch:
            raise KeyboardInterrupt
        callbacks.on_epoch_begin(epoch, {})
        for batch in range(steps):
            callbacks.on_train_batch_begin(batch, {})
            model.weights = [np.array([float(epoch)])]
            logs = {"loss": 1.0 / (batch + 1)} if batch_logs is None else batch_logs(epoch, batch)
            callbacks.on_train_batch_end(batch, logs)
            if model.stop_training:
                break
        callbacks.on_epoch_end(epoch, dict(epoch_logs[epoch]))
        if model.stop_training:
            break
    callbacks.on_train_end({})
    return model.history


def val_losses(*values):
    """Epoch logs with these ``val_loss`` values (and ``loss`` 0.1 above each)."""
    return [{"loss": v + 0.1, "val_loss": v} for v in values]

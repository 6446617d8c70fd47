"""The :class:`History` callback: the epoch logs ``fit`` returns."""

from .callback import CALLBACKS, Callback


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

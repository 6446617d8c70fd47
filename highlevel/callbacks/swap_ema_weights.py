"""The :class:`SwapEMAWeights` callback: evaluate (and optionally checkpoint) with the
optimizer's exponential moving averages of the weights."""

from .callback import CALLBACKS, Callback


@CALLBACKS.register()
class SwapEMAWeights(Callback):
    """Swaps the model's weights with the optimizer's EMA weights (Polyak averaging) before
    evaluation and prediction, and back after, as Keras. The optimizer needs
    ``use_ema=True``; the swap is in place.

    Example:
        >>> model.compile(optimizer=lamina.optimizers.SGD(use_ema=True), loss="mse")
        >>> model.fit(x, y, validation_data=(xv, yv), callbacks=[SwapEMAWeights()])

    Args:
        swap_on_epoch: also swap at the end of each epoch (and back at the start of the
            next), so that callbacks after this one, such as ``ModelCheckpoint``, see the
            EMA weights.
    """

    def __init__(self, swap_on_epoch=False):
        super().__init__()
        self.swap_on_epoch = swap_on_epoch
        self._ema_weights_in_model = False

    def _weights_and_averages(self):
        optimizer = self.model.optimizer
        optimizer = getattr(optimizer, "inner_optimizer", optimizer)   # LossScaleOptimizer
        if not getattr(optimizer, "use_ema", False):
            raise ValueError("SwapEMAWeights must be used when `use_ema=True` is set on the "
                             f"optimizer. Received: use_ema={getattr(optimizer, 'use_ema', None)}")
        return [(variable, slots["average"]) for variable, slots in optimizer.slot_variables()]

    def _swap(self, ema_in_model):
        for variable, average in self._weights_and_averages():
            held = variable.data.copy()
            variable.assign(average.data)
            average.assign(held)
        self._ema_weights_in_model = ema_in_model

    def on_epoch_begin(self, epoch, logs=None):
        if self.swap_on_epoch and self._ema_weights_in_model:
            self._swap(False)

    def on_epoch_end(self, epoch, logs=None):
        if self.swap_on_epoch and not self._ema_weights_in_model:
            self._swap(True)
            if epoch == self.params.get("epochs", 0) - 1:
                # fit ends by writing the averages into the weights: they must be the EMA
                # weights the model holds now, not the raw ones just swapped out
                for variable, average in self._weights_and_averages():
                    average.assign(variable.data)

    def on_test_begin(self, logs=None):
        if not self._ema_weights_in_model:
            self._swap(True)

    def on_test_end(self, logs=None):
        if self._ema_weights_in_model:
            self._swap(False)

    on_predict_begin = on_test_begin     # predict, too, runs with the EMA weights
    on_predict_end = on_test_end

"""``Adagrad``, as ``keras.optimizers.Adagrad``."""

from ...backends import state
from .optimizer import OPTIMIZERS, Optimizer


@OPTIMIZERS.register("adagrad")
class Adagrad(Optimizer):
    """Adagrad: ``acc += g**2; w -= lr * g / sqrt(acc + epsilon)``."""

    slot_names = ("accumulator",)

    def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7,
                 weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None,
                 name="adagrad", **kwargs):
        super().__init__(learning_rate, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, name=name,
                         **kwargs)
        self.initial_accumulator_value = initial_accumulator_value
        self.epsilon = epsilon

    def slot_initial_value(self, slot_name):
        return self.initial_accumulator_value

    def update_rule(self, variable, gradient, slots, lr, step, decay):
        if decay:
            self._decay(variable, lr, decay)
        xp = state.backend().xp
        accumulator = slots[0].data
        scratch = self._buffer(gradient)
        xp.multiply(gradient, gradient, out=scratch)
        accumulator += scratch
        xp.add(accumulator, self.epsilon, out=scratch)
        xp.sqrt(scratch, out=scratch)
        xp.divide(gradient, scratch, out=scratch)
        scratch *= lr
        variable -= scratch

    def get_config(self):
        return {**super().get_config(),
                "initial_accumulator_value": self.initial_accumulator_value,
                "epsilon": self.epsilon}

"""``Lion`` (evolved sign momentum), as ``keras.optimizers.Lion``."""

from ...backends import state
from .optimizer import OPTIMIZERS, Optimizer


@OPTIMIZERS.register("lion")
class Lion(Optimizer):
    """Lion (Keras' form): ``w -= lr * sign(beta_1 m + (1 - beta_1) g)``, then
    ``m = beta_2 m + (1 - beta_2) g``."""

    slot_names = ("momentum",)

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.99, weight_decay=None,
                 clipnorm=None, clipvalue=None, global_clipnorm=None, name=None, **kwargs):
        super().__init__(learning_rate, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, name=name,
                         **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        if beta_1 <= 0 or beta_1 > 1:
            raise ValueError("Argument `beta_1` must be in the [0, 1] range. Otherwise, the "
                             f"optimizer degenerates to SignSGD. Received: beta_1={beta_1}.")

    def update_rule(self, variable, gradient, slots, lr, step, decay):
        if decay:
            self._decay(variable, lr, decay)
        xp = state.backend().xp
        m = slots[0].data
        variable -= lr * xp.sign(m * self.beta_1 + gradient * (1.0 - self.beta_1))
        m *= self.beta_2
        m += gradient * (1.0 - self.beta_2)

    def get_config(self):
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2}

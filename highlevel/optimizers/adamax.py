"""``Adamax``: Adam with the infinity norm, as ``keras.optimizers.Adamax``."""

from ...backends import state
from .optimizer import OPTIMIZERS, Optimizer


@OPTIMIZERS.register("adamax")
class Adamax(Optimizer):
    """Adamax (Keras' form): ``m += (g - m)(1 - beta_1)``, ``norm = max(beta_2 norm,
    |g|)``, ``w -= lr m / ((1 - beta_1**t)(norm + epsilon))``."""

    slot_names = ("momentum", "norm")

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None,
                 name=None, **kwargs):
        super().__init__(learning_rate, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, name=name,
                         **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon

    def _update(self, variable, gradient, slots, lr, step, decay):
        if decay:
            self._decay(variable, lr, decay)
        xp = state.backend().xp
        m, norm = slots[0].data, slots[1].data
        m += (gradient - m) * (1 - self.beta_1)
        norm *= self.beta_2
        xp.maximum(norm, xp.abs(gradient), out=norm)
        variable -= lr * m / ((1 - self.beta_1 ** step) * (norm + self.epsilon))

    def get_config(self):
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2,
                "epsilon": self.epsilon}

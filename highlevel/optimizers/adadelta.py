"""``Adadelta``, as ``keras.optimizers.Adadelta``."""

from ...backends import state
from .optimizer import OPTIMIZERS, Optimizer


@OPTIMIZERS.register("adadelta")
class Adadelta(Optimizer):
    """Adadelta (Keras' form): running averages of squared gradients and of squared
    updates; ``delta = -sqrt(acc_delta + eps) g / sqrt(acc_grad + eps)``,
    ``w += lr * delta``."""

    slot_names = ("accumulated_grad", "accumulated_delta_var")

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-7, weight_decay=None,
                 clipnorm=None, clipvalue=None, global_clipnorm=None, name=None, **kwargs):
        super().__init__(learning_rate, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, name=name,
                         **kwargs)
        self.rho = rho
        self.epsilon = epsilon

    def update_rule(self, variable, gradient, slots, lr, step, decay):
        if decay:
            self._decay(variable, lr, decay)
        xp = state.backend().xp
        rho = self.rho
        accumulated_grad, accumulated_delta = slots[0].data, slots[1].data
        accumulated_grad *= rho
        accumulated_grad += (1 - rho) * xp.square(gradient)
        delta = -(xp.sqrt(accumulated_delta + self.epsilon) * gradient
                  / xp.sqrt(accumulated_grad + self.epsilon))
        accumulated_delta *= rho
        accumulated_delta += (1 - rho) * xp.square(delta)
        variable += lr * delta

    def get_config(self):
        return {**super().get_config(), "rho": self.rho, "epsilon": self.epsilon}

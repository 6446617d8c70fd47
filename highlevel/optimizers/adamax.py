"""``Adamax``: Adam with the infinity norm, as ``keras.optimizers.Adamax``."""

from ...backends import state
from .moments import MomentOptimizer
from .optimizer import OPTIMIZERS


@OPTIMIZERS.register("adamax")
class Adamax(MomentOptimizer):
    """Adamax (Keras' form): ``m += (g - m)(1 - beta_1)``, ``norm = max(beta_2 norm,
    |g|)``, ``w -= lr m / ((1 - beta_1**t)(norm + epsilon))``."""

    slot_names = ("momentum", "norm")

    def update_rule(self, variable, gradient, slots, lr, step, decay):
        if decay:
            self._decay(variable, lr, decay)
        xp = state.backend().xp
        m, norm = slots[0].data, slots[1].data
        m += (gradient - m) * (1 - self.beta_1)
        norm *= self.beta_2
        xp.maximum(norm, xp.abs(gradient), out=norm)
        variable -= lr * m / ((1 - self.beta_1 ** step) * (norm + self.epsilon))

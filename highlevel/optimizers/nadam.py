"""``Nadam``: Adam with Nesterov momentum (Dozat's momentum schedule), as
``keras.optimizers.Nadam``."""

import numpy as np

from ...backends import state
from ...backends.autodiff import Variable
from .moments import MomentOptimizer
from .optimizer import OPTIMIZERS


@OPTIMIZERS.register("nadam")
class Nadam(MomentOptimizer):
    """Nadam (Keras' form): momentum ``m`` and velocity ``v`` as Adam, the momentum
    schedule ``u_t = beta_1 * (1 - 0.5 * 0.96**t)`` and its running product (a state
    variable of the optimizer, as Keras keeps it); the step uses
    ``m_hat = u_{t+1} m / (1 - prod_{t+1}) + (1 - u_t) g / (1 - prod_t)`` and
    ``v_hat = v / (1 - beta_2**t)``: ``w -= lr * m_hat / (sqrt(v_hat) + epsilon)``."""

    slot_names = ("momentum", "velocity")

    def state_variables(self):
        product = self.__dict__.get("_u_product")
        if product is None:         # made on first use (the constructor is the base's)
            product = self._u_product = Variable(np.array(1.0, dtype="float32"),
                                                 trainable=False, name="variable")
        return {"variable": product}

    def _before_updates(self, step):
        product = self.state_variables()["variable"].data
        product[...] = product * np.float32(self.beta_1 * (1.0 - 0.5 * 0.96 ** step))

    def update_rule(self, variable, gradient, slots, lr, step, decay):
        if decay:
            self._decay(variable, lr, decay)
        xp = state.backend().xp
        m, v = slots[0].data, slots[1].data
        u_t = self.beta_1 * (1.0 - 0.5 * 0.96 ** step)
        u_t_1 = self.beta_1 * (1.0 - 0.5 * 0.96 ** (step + 1))
        u_product_t = float(self.state_variables()["variable"].data)
        u_product_t_1 = u_product_t * u_t_1
        m += (gradient - m) * (1 - self.beta_1)
        v += (xp.square(gradient) - v) * (1 - self.beta_2)
        m_hat = (u_t_1 / (1 - u_product_t_1)) * m + ((1 - u_t) / (1 - u_product_t)) * gradient
        v_hat = v / (1 - self.beta_2 ** step)
        variable -= m_hat * lr / (xp.sqrt(v_hat) + self.epsilon)

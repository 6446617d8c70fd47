"""``Lamb`` (layer-wise adaptive moments, You et al. 2019), as ``keras.optimizers.Lamb``."""

from ...backends import state
from .moments import MomentOptimizer
from .optimizer import OPTIMIZERS


@OPTIMIZERS.register("lamb")
class Lamb(MomentOptimizer):
    """Lamb (Keras' form): Adam's bias-corrected step ``u = m_hat / (sqrt(v_hat) + eps)``
    scaled per variable by the trust ratio ``||w|| / ||u||`` (1 when either norm is 0):
    ``w -= ratio * lr * u``. Arguments as Keras: ``learning_rate=0.001, beta_1=0.9,
    beta_2=0.999, epsilon=1e-7`` and the base options (``weight_decay``, ``clipnorm``,
    ``use_ema``, ...)."""

    slot_names = ("momentum", "velocity")
    packable = False     # the trust ratio's norms are per variable: never one flat buffer

    def update_rule(self, variable, gradient, slots, lr, step, decay):
        if decay:
            self._decay(variable, lr, decay)
        xp = state.backend().xp
        m, v = slots[0].data, slots[1].data
        m += (gradient - m) * (1.0 - self.beta_1)
        v += (gradient * gradient - v) * (1.0 - self.beta_2)
        update = self._buffer(gradient)
        xp.divide(v, 1.0 - self.beta_2 ** step, out=update)
        xp.sqrt(update, out=update)
        update += self.epsilon
        xp.divide(m, update, out=update)
        update /= 1.0 - self.beta_1 ** step
        w_norm = xp.sqrt(xp.sum(variable * variable))
        u_norm = xp.sqrt(xp.sum(update * update))
        usable = (w_norm > 0) & (u_norm > 0)         # no host sync: stays on the device
        ratio = xp.where(usable, w_norm / xp.where(usable, u_norm, 1.0), 1.0)
        update *= ratio * lr
        variable -= update

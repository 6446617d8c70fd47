"""``Adam`` (optionally AMSGrad), as ``keras.optimizers.Adam``; on the NumPy engine its rule
runs as one compiled pass (``Backend.optimizer_kernel("adam", dtype)``)."""

from ...backends import state
from .optimizer import OPTIMIZERS, Optimizer


@OPTIMIZERS.register("adam")
class Adam(Optimizer):
    """Adam (Keras' form, epsilon outside the square root), optionally AMSGrad."""

    slot_groups = (("momentum", "velocity"), ("velocity_hat",))

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 amsgrad=False, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, name="adam", **kwargs):
        super().__init__(learning_rate, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, name=name,
                         **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self.amsgrad = bool(amsgrad)
        self.slot_names = ("momentum", "velocity") + (("velocity_hat",) if amsgrad else ())

    def update_rule(self, variable, gradient, slots, lr, step, decay):
        m, v = slots[0].data, slots[1].data
        v_hat = slots[2].data if self.amsgrad else None
        weight_decay = self.weight_decay if decay else 0.0
        alpha = lr * (1.0 - self.beta_2 ** step) ** 0.5 / (1.0 - self.beta_1 ** step)
        backend = state.backend()
        kernel = backend.optimizer_kernel("adam", variable.dtype)
        arrays = (variable, gradient, m, v) + (() if v_hat is None else (v_hat,))
        if kernel is not None and all(
                a.dtype == variable.dtype and a.flags.c_contiguous for a in arrays):
            kernel(variable, gradient, m, v, alpha, self.beta_1, self.beta_2, self.epsilon,
                   1.0 - lr * weight_decay, v_hat)
            return
        xp = backend.xp
        if weight_decay:
            variable *= 1.0 - lr * weight_decay
        # m = b1*m + (1-b1)*g written as b1*(m-g) + g: three in-place passes, no temporary.
        m -= gradient
        m *= self.beta_1
        m += gradient
        scratch = self._buffer(gradient)
        xp.multiply(gradient, gradient, out=scratch)
        v -= scratch
        v *= self.beta_2
        v += scratch
        if v_hat is not None:
            xp.maximum(v_hat, v, out=v_hat)
        xp.sqrt(v if v_hat is None else v_hat, out=scratch)
        scratch += self.epsilon
        xp.divide(m, scratch, out=scratch)
        scratch *= alpha
        variable -= scratch

    def get_config(self):
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2,
                "epsilon": self.epsilon, "amsgrad": self.amsgrad}

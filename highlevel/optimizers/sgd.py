"""``SGD``: stochastic gradient descent with optional (Nesterov) momentum, as
``keras.optimizers.SGD``."""

from .optimizer import OPTIMIZERS, Optimizer


@OPTIMIZERS.register("sgd")
class SGD(Optimizer):
    """Stochastic gradient descent with optional (Nesterov) momentum (Keras' form:
    ``v = momentum * v - lr * g; w += v`` or ``w += momentum * v - lr * g``)."""

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, weight_decay=None,
                 clipnorm=None, clipvalue=None, global_clipnorm=None, name="SGD", **kwargs):
        super().__init__(learning_rate, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, name=name,
                         **kwargs)
        if not 0 <= momentum <= 1:
            raise ValueError("`momentum` must be a float between [0, 1].")
        self.momentum = float(momentum)
        self.nesterov = bool(nesterov)
        self.slot_names = ("momentum",) if self.momentum != 0 else ()

    def update_rule(self, variable, gradient, slots, lr, step, decay):
        if decay:
            self._decay(variable, lr, decay)
        if not slots:
            variable -= lr * gradient
            return
        velocity = slots[0].data
        velocity *= self.momentum
        velocity -= lr * gradient
        if self.nesterov:
            variable += self.momentum * velocity - lr * gradient
        else:
            variable += velocity

    def get_config(self):
        return {**super().get_config(), "momentum": self.momentum, "nesterov": self.nesterov}

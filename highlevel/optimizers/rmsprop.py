"""``RMSprop`` (optional momentum, ``centered`` variant), as ``keras.optimizers.RMSprop``."""

from ...backends import state
from .optimizer import OPTIMIZERS, Optimizer


@OPTIMIZERS.register("rmsprop")
class RMSprop(Optimizer):
    """RMSprop (Keras' form, epsilon inside the square root), optional momentum and
    ``centered`` variant."""

    slot_groups = (("velocity",), ("momentum",), ("average_gradient",))

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7,
                 centered=False, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, name="rmsprop", **kwargs):
        super().__init__(learning_rate, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, name=name,
                         **kwargs)
        self.rho = rho
        self.momentum = momentum
        self.epsilon = epsilon
        self.centered = bool(centered)
        self.slot_names = ("velocity",) + (("momentum",) if momentum > 0 else ()) + \
            (("average_gradient",) if centered else ())

    def update_rule(self, variable, gradient, slots, lr, step, decay):
        if decay:
            self._decay(variable, lr, decay)
        velocity = slots[0].data
        momentum = slots[1].data if self.momentum > 0 else None
        if self.centered:
            increment = self._centered_increment(velocity, slots[-1].data, gradient, lr)
        else:
            increment = self._increment(velocity, gradient, lr)
        if momentum is not None:
            momentum *= self.momentum
            momentum += increment
            variable -= momentum
        else:
            variable -= increment

    def _increment(self, velocity, gradient, lr):
        """``lr * g / sqrt(velocity + epsilon)`` after ``velocity = rho (velocity - g^2) +
        g^2``, in place in a scratch array."""
        xp = state.backend().xp
        scratch = self._buffer(gradient)
        xp.multiply(gradient, gradient, out=scratch)
        velocity -= scratch
        velocity *= self.rho
        velocity += scratch
        xp.add(velocity, self.epsilon, out=scratch)
        xp.sqrt(scratch, out=scratch)
        xp.divide(gradient, scratch, out=scratch)
        scratch *= lr
        return scratch

    def _centered_increment(self, velocity, average, gradient, lr):
        """The centred variant: the mean square minus the squared mean gradient
        (``average``) under the square root."""
        xp = state.backend().xp
        rho = self.rho
        velocity *= rho
        velocity += (1 - rho) * xp.square(gradient)
        average *= rho
        average += (1 - rho) * gradient
        return lr * gradient / xp.sqrt(velocity - xp.square(average) + self.epsilon)

    def get_config(self):
        return {**super().get_config(), "rho": self.rho, "momentum": self.momentum,
                "epsilon": self.epsilon, "centered": self.centered}

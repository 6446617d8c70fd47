"""``Ftrl`` (follow the regularized leader), as ``keras.optimizers.Ftrl``."""

from ...backends import state
from .optimizer import OPTIMIZERS, Optimizer

_NON_NEGATIVE = ("initial_accumulator_value", "l1_regularization_strength",
                 "l2_regularization_strength", "l2_shrinkage_regularization_strength")


@OPTIMIZERS.register("ftrl")
class Ftrl(Optimizer):
    """FTRL-Proximal (Keras' form) with L1, L2 and L2-shrinkage regularization and
    ``beta``; slots ``accumulator`` (starting at ``initial_accumulator_value``) and
    ``linear``."""

    slot_names = ("accumulator", "linear")

    def __init__(self, learning_rate=0.001, learning_rate_power=-0.5,
                 initial_accumulator_value=0.1, l1_regularization_strength=0.0,
                 l2_regularization_strength=0.0, l2_shrinkage_regularization_strength=0.0,
                 beta=0.0, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, name=None, **kwargs):
        super().__init__(learning_rate, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, name=name,
                         **kwargs)
        values = {"initial_accumulator_value": initial_accumulator_value,
                  "l1_regularization_strength": l1_regularization_strength,
                  "l2_regularization_strength": l2_regularization_strength,
                  "l2_shrinkage_regularization_strength":
                      l2_shrinkage_regularization_strength}
        for argument in _NON_NEGATIVE:
            if values[argument] < 0.0:
                raise ValueError(f"`{argument}` needs to be positive or zero. Received: "
                                 f"{argument}={values[argument]}.")
        if learning_rate_power > 0.0:
            raise ValueError("`learning_rate_power` needs to be negative or zero. Received: "
                             f"learning_rate_power={learning_rate_power}.")
        self.learning_rate_power = learning_rate_power
        self.initial_accumulator_value = initial_accumulator_value
        self.l1_regularization_strength = l1_regularization_strength
        self.l2_regularization_strength = l2_regularization_strength
        self.l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength
        self.beta = beta

    def slot_initial_value(self, slot_name):
        return self.initial_accumulator_value if slot_name == "accumulator" else 0.0

    def update_rule(self, variable, gradient, slots, lr, step, decay):
        if decay:
            self._decay(variable, lr, decay)
        xp = state.backend().xp
        accumulator, linear = slots[0].data, slots[1].data
        power = -self.learning_rate_power
        l2 = self.l2_regularization_strength + self.beta / (2.0 * lr)
        shrunk = gradient + (2 * self.l2_shrinkage_regularization_strength) * variable
        new_accumulator = accumulator + xp.square(gradient)
        new_power = xp.power(new_accumulator, power)
        linear += shrunk - (new_power - xp.power(accumulator, power)) / lr * variable
        quadratic = new_power / lr + 2 * l2
        l1 = self.l1_regularization_strength
        variable[...] = (xp.clip(linear, -l1, l1) - linear) / quadratic
        accumulator[...] = new_accumulator

    def get_config(self):
        return {**super().get_config(), "learning_rate_power": self.learning_rate_power,
                "initial_accumulator_value": self.initial_accumulator_value,
                "l1_regularization_strength": self.l1_regularization_strength,
                "l2_regularization_strength": self.l2_regularization_strength,
                "l2_shrinkage_regularization_strength":
                    self.l2_shrinkage_regularization_strength,
                "beta": self.beta}

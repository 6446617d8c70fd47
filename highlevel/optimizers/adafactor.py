"""``Adafactor``: factored second moments, as ``keras.optimizers.Adafactor``."""

from ...backends import state
from .optimizer import OPTIMIZERS, Optimizer


@OPTIMIZERS.register("adafactor")
class Adafactor(Optimizer):
    """Adafactor (Keras' form). A variable of rank >= 2 keeps the row means ``r`` and
    column means ``c`` of its squared gradients over the last two axes (the velocity is
    their outer product, normalized); smaller variables keep a full ``velocity`` (their
    ``r`` and ``c`` are int32 scalar placeholders, as in Keras). The step is
    ``max(epsilon_2, rms(w)) * min(lr, 1/sqrt(t))`` times the update clipped to RMS
    ``clip_threshold``; with ``relative_step`` a float learning rate is capped at
    ``1/sqrt(t)``. The rule needs each variable's own shape, so it is never flat-packed."""

    slot_names = ("r", "c", "velocity")
    packable = False

    def __init__(self, learning_rate=0.001, beta_2_decay=-0.8, epsilon_1=1e-30,
                 epsilon_2=1e-3, clip_threshold=1.0, relative_step=True, weight_decay=None,
                 clipnorm=None, clipvalue=None, global_clipnorm=None, name=None, **kwargs):
        super().__init__(learning_rate, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, name=name,
                         **kwargs)
        self.beta_2_decay = beta_2_decay
        self.epsilon_1 = epsilon_1
        self.epsilon_2 = epsilon_2
        self.clip_threshold = clip_threshold
        self.relative_step = relative_step

    def slot_spec(self, variable_array, slot_name):
        shape = tuple(variable_array.shape)
        if slot_name not in ("r", "c"):
            return super().slot_spec(variable_array, slot_name)
        if len(shape) < 2:
            return (), "int32"
        return (shape[:-1] if slot_name == "r" else shape[:-2] + shape[-1:]), \
            variable_array.dtype

    def update_rule(self, variable, gradient, slots, lr, step, decay):
        if decay:
            self._decay(variable, lr, decay)
        xp = state.backend().xp
        r, c, v = (slot.data for slot in slots)
        if not callable(self._learning_rate) and self.relative_step:
            lr = min(lr, 1 / step ** 0.5)
        rho = min(lr, 1 / step ** 0.5)
        alpha = xp.maximum(self.epsilon_2, _rms(xp, variable)) * rho
        squared = xp.square(gradient) + self.epsilon_1
        beta_2 = 1 - step ** self.beta_2_decay
        if variable.ndim >= 2:
            r *= beta_2
            r += (1 - beta_2) * squared.mean(axis=-1)
            c *= beta_2
            c += (1 - beta_2) * squared.mean(axis=-2)
            v[...] = (r / r.mean(axis=-1, keepdims=True))[..., None] * c[..., None, :]
        else:
            v *= beta_2
            v += (1 - beta_2) * squared
        update = gradient / xp.sqrt(v)
        update /= xp.maximum(1.0, _rms(xp, update) / self.clip_threshold)
        variable -= (alpha * update).astype(variable.dtype, copy=False)

    def get_config(self):
        return {**super().get_config(), "beta_2_decay": self.beta_2_decay,
                "epsilon_1": self.epsilon_1, "epsilon_2": self.epsilon_2,
                "clip_threshold": self.clip_threshold, "relative_step": self.relative_step}


def _rms(xp, x):
    return xp.sqrt(xp.mean(xp.square(x)))

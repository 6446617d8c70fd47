"""``LossScaleOptimizer``: dynamic loss scaling for float16 training, as
``keras.optimizers.LossScaleOptimizer`` (also ``lamina.mixed_precision``).

float16 gradients of small losses underflow to zero. The training step multiplies the loss
by the loss scale (``scale_loss``), so every gradient is scaled by it too; ``apply`` divides
the gradients by the scale again before the wrapped optimizer updates the variables. The
scale adapts as in Keras 3: when a gradient holds an inf or NaN the step is skipped and
the scale halved; after ``dynamic_growth_steps`` finite steps in a row it is doubled.
``Model.compile`` wraps the optimizer in one automatically when the model's dtype policy is
``"mixed_float16"`` (``auto_scale_loss=True``), as Keras does.

Example:
    >>> opt = lamina.optimizers.LossScaleOptimizer(lamina.optimizers.Adam())
    >>> scaled = opt.scale_loss(loss)                # loss * 32768
    >>> opt.apply(lamina.grad(scaled, weights), weights)
"""

import numpy as np

from ...backends import replica, state
from ...backends.autodiff import Tensor, Variable, as_engine_array
from . import lookup
from .optimizer import OPTIMIZERS, Optimizer

# Base-optimizer arguments LossScaleOptimizer does not take; Keras 3 accepts them at their
# defaults (older configs list them) and refuses any other value.
_BASE_DEFAULTS = {"weight_decay": None, "clipnorm": None, "global_clipnorm": None,
                  "clipvalue": None, "use_ema": False, "ema_momentum": 0.99,
                  "ema_overwrite_frequency": None, "loss_scale_factor": None,
                  "gradient_accumulation_steps": None}


@OPTIMIZERS.register()
class LossScaleOptimizer(Optimizer):
    """An optimizer that scales the loss dynamically to prevent float16 underflow.

    Args:
        inner_optimizer: the :class:`Optimizer` that updates the variables.
        initial_scale: the first loss scale (Keras' default ``2**15``).
        dynamic_growth_steps: double the scale after this many finite steps in a row.
        name: the optimizer's name.

    State: ``dynamic_scale`` (float32) and ``step_counter`` (int64, finite steps since the
    scale last changed), saved with the model; ``iterations`` and ``learning_rate`` are the
    inner optimizer's.
    """

    def __init__(self, inner_optimizer, initial_scale=2.0**15, dynamic_growth_steps=2000,
                 name=None, **kwargs):
        if not kwargs.pop("dynamic", True):
            raise ValueError("LossScaleOptimizer no longer supports `dynamic=False`. "
                             "Instead, simply set `loss_scale_factor` directly on the "
                             "`inner_optimizer`.")
        for argument, default in _BASE_DEFAULTS.items():
            if argument in kwargs and kwargs.pop(argument) != default:
                raise ValueError(f"LossScaleOptimizer does not support `{argument}`. "
                                 f"Instead, set `{argument}` on the `inner_optimizer`.")
        if kwargs:
            raise ValueError("LossScaleOptimizer does not support arguments: "
                             f"`{'`, `'.join(kwargs)}`.")
        if not isinstance(inner_optimizer, Optimizer):
            raise ValueError("LossScaleOptimizer needs an Optimizer instance as "
                             f"`inner_optimizer`, got {inner_optimizer!r}")
        if not isinstance(dynamic_growth_steps, (int, np.integer)) or dynamic_growth_steps < 1:
            raise ValueError("LossScaleOptimizer needs a positive int `dynamic_growth_steps`, "
                             f"got {dynamic_growth_steps!r}")
        super().__init__(learning_rate=0.0, name=name or "loss_scale_optimizer")
        self.inner_optimizer = inner_optimizer
        self.initial_scale = float(initial_scale)
        self.dynamic_growth_steps = int(dynamic_growth_steps)
        # the inner optimizer must not unscale a second time
        self.inner_optimizer.loss_scale_factor = None
        self.step_counter = Variable(np.array(0, dtype="int64"), trainable=False,
                                     name="step_counter")
        self.dynamic_scale = Variable(np.array(self.initial_scale, dtype="float32"),
                                      trainable=False, name="dynamic_scale")

    # ------------------------------------------------------------- the wrapped optimizer
    @property
    def learning_rate(self):
        """The inner optimizer's learning rate (settable)."""
        return self.inner_optimizer.learning_rate

    @learning_rate.setter
    def learning_rate(self, value):
        self.inner_optimizer.learning_rate = value

    @property
    def iterations(self):
        """The inner optimizer's update count (skipped steps do not count)."""
        return self.inner_optimizer.iterations

    @iterations.setter
    def iterations(self, value):
        self.inner_optimizer.set_iterations(value)

    def set_iterations(self, value):
        """Set the inner optimizer's iteration counter."""
        self.inner_optimizer.set_iterations(value)

    @property
    def slot_names(self):
        """The inner optimizer's slot names."""
        return self.inner_optimizer.slot_names

    def build(self, variables):
        """Build the inner optimizer's slots for ``variables``."""
        self.inner_optimizer.build(variables)

    @property
    def built(self):
        return self.inner_optimizer.built

    @property
    def variables(self):
        """``[step_counter, dynamic_scale]`` then the inner optimizer's variables."""
        own = [self.step_counter, self.dynamic_scale]
        return type(self.inner_optimizer.variables)(own + list(self.inner_optimizer.variables))

    def get_slot(self, variable, slot_name):
        """The inner optimizer's slot ``slot_name`` of ``variable``."""
        return self.inner_optimizer.get_slot(variable, slot_name)

    def slot_variables(self):
        """The inner optimizer's slots by variable."""
        return self.inner_optimizer.slot_variables()

    # ------------------------------------------------------------- scaling
    def scale_loss(self, loss):
        """``loss * dynamic_scale`` (call it on the loss before taking gradients)."""
        return loss * float(self.dynamic_scale.data)

    def check_finite(self, grads):
        """True when no gradient holds an inf or NaN."""
        xp = state.backend().xp
        return all(bool(xp.isfinite(g).all()) for g in grads if g is not None)

    def apply(self, grads, variables):
        """Unscale ``grads`` and apply them with the inner optimizer, or skip the step
        when one is not finite; then update the loss scale (Keras 3's rule)."""
        variables = list(variables)
        grads = replica.reduce_gradients(grads)   # every process then decides alike
        arrays = [None if g is None else as_engine_array(g.data if isinstance(g, Tensor) else g)
                  for g in grads]
        if not self.check_finite(arrays):
            self.step_counter.assign(0)
            self.dynamic_scale.assign(self.dynamic_scale.data * 0.5)
            return
        scale = self.dynamic_scale.data
        unscaled = [None if g is None else g.astype(v.data.dtype) / scale.astype(v.data.dtype)
                    for g, v in zip(arrays, variables)]
        with replica.gradients_reduced():
            self.inner_optimizer.apply(unscaled, variables)
        if int(self.step_counter.data) == self.dynamic_growth_steps - 1:
            self.step_counter.assign(0)
            self.dynamic_scale.assign(scale * 2.0)
        else:
            self.step_counter.assign(self.step_counter.data + 1)

    # ------------------------------------------------------------- config
    def get_config(self):
        """Keras 3's config: ``name``, the serialized ``inner_optimizer``,
        ``initial_scale`` and ``dynamic_growth_steps``."""
        return {"name": self.name, "inner_optimizer": lookup.serialize(self.inner_optimizer),
                "initial_scale": self.initial_scale,
                "dynamic_growth_steps": self.dynamic_growth_steps}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """Rebuild from :meth:`get_config` (Keras-written configs included)."""
        config = dict(config)
        inner = lookup.deserialize(config.pop("inner_optimizer"), custom_objects)
        return cls(inner, **config)

    def __repr__(self):
        return (f"<LossScaleOptimizer name={self.name!r} inner={self.inner_optimizer!r} "
                f"scale={float(self.dynamic_scale.data)}>")

"""``lamina.mixed_precision``: dtype policies and loss scaling, as ``keras.mixed_precision``."""

from lamina.highlevel.optimizers.loss_scale_optimizer import LossScaleOptimizer
from lamina.layers.options.dtype_policies import (DTypePolicy, Policy, dtype_policy,
                                                  global_policy, set_dtype_policy,
                                                  set_global_policy)

__all__ = ["DTypePolicy", "LossScaleOptimizer", "Policy", "dtype_policy", "global_policy",
           "set_dtype_policy", "set_global_policy"]

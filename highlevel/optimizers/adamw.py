"""``AdamW``: Adam with decoupled weight decay, as ``keras.optimizers.AdamW``."""

from .adam import Adam
from .optimizer import OPTIMIZERS


@OPTIMIZERS.register("adamw")
class AdamW(Adam):
    """Adam with decoupled weight decay (``weight_decay=0.004``)."""

    def __init__(self, learning_rate=0.001, weight_decay=0.004, beta_1=0.9, beta_2=0.999,
                 epsilon=1e-7, amsgrad=False, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, name="adamw", **kwargs):
        if weight_decay is None:
            raise ValueError("Argument `weight_decay` must be a float. Received: "
                             "weight_decay=None")
        super().__init__(learning_rate=learning_rate, beta_1=beta_1, beta_2=beta_2,
                         epsilon=epsilon, amsgrad=amsgrad, weight_decay=weight_decay,
                         clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, name=name, **kwargs)

"""The constructor and config that Nadam, Adamax and Lamb share with Keras: ``beta_1``,
``beta_2`` and ``epsilon`` (defaults 0.9, 0.999, 1e-7) on top of the base options."""

from .optimizer import Optimizer


class MomentOptimizer(Optimizer):
    """Base of the optimizers with first and second moment decays ``beta_1``, ``beta_2``
    and ``epsilon``; subclasses implement ``update_rule``."""

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None,
                 name=None, **kwargs):
        super().__init__(learning_rate, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, name=name,
                         **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon

    def get_config(self):
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2,
                "epsilon": self.epsilon}

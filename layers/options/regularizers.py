"""Weight and activity regularizers (``"l1"``, ``"l2"``, ``"l1_l2"``)."""

from ...backends import ops
from ...backends.registry import Registry
from ..configurable import Configurable
from ..configurable import serialize as _serialize

REGULARIZERS = Registry("regularizer")


class Regularizer(Configurable):
    """Base class: ``regularizer(x)`` returns a scalar Tensor penalty."""

    def __call__(self, x):
        raise NotImplementedError


@REGULARIZERS.register("l1_l2")
class L1L2(Regularizer):
    """``l1 * sum(|x|) + l2 * sum(x**2)``."""

    def __init__(self, l1=0.0, l2=0.0):
        self.l1, self.l2 = float(l1), float(l2)

    def __call__(self, x):
        penalty = 0.0
        if self.l1:
            penalty = ops.sum(ops.abs(x)) * self.l1
        if self.l2:
            penalty = penalty + ops.sum(ops.square(x)) * self.l2
        return penalty

    def get_config(self):
        return {"l1": self.l1, "l2": self.l2}


@REGULARIZERS.register("l1")
class L1(L1L2):
    """``l1 * sum(|x|)`` (Keras' default factor 0.01)."""

    def __init__(self, l1=0.01):
        super().__init__(l1=l1)

    def get_config(self):
        return {"l1": self.l1}


@REGULARIZERS.register("l2")
class L2(L1L2):
    """``l2 * sum(x**2)`` (Keras' default factor 0.01)."""

    def __init__(self, l2=0.01):
        super().__init__(l2=l2)

    def get_config(self):
        return {"l2": self.l2}


def get(identifier):
    """Resolve ``None``, a name, a config dict or an instance."""
    if identifier is None:
        return None
    return REGULARIZERS.resolve(identifier, Regularizer, "a name, config dict or Regularizer")


def serialize(regularizer):
    """``None`` or ``{"class_name", "config"}``."""
    if regularizer is None:
        return None
    return _serialize(regularizer)


__all__ = [
    "L1", "L1L2", "L2", "REGULARIZERS", "Regularizer", "get", "serialize",
]

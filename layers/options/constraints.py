"""Weight constraints (``keras.constraints``): projections applied to a weight after each
optimizer update (``Dense(..., kernel_constraint="non_neg")``)."""

from ...backends import state
from ...backends.registry import Registry
from ..configurable import Configurable
from ..configurable import deserialize as _deserialize
from ..configurable import serialize as _serialize

CONSTRAINTS = Registry("constraint")


class Constraint(Configurable):
    """Base class: ``constraint(w)`` maps an engine array to its projection (same shape)."""

    def __call__(self, w):
        return w


def _norms(w, axis):
    xp = state.backend().xp
    return xp.sqrt((w * w).sum(axis=axis, keepdims=True))


@CONSTRAINTS.register("non_neg")
class NonNeg(Constraint):
    """Weights are set to ``max(w, 0)``."""

    def __call__(self, w):
        return state.backend().xp.maximum(w, 0)


@CONSTRAINTS.register("max_norm")
class MaxNorm(Constraint):
    """Rescales weights whose norm along ``axis`` exceeds ``max_value``."""

    def __init__(self, max_value=2, axis=0):
        self.max_value, self.axis = max_value, axis

    def __call__(self, w):
        norms = _norms(w, self.axis)
        desired = state.backend().xp.clip(norms, 0, self.max_value)
        return w * (desired / (norms + state.epsilon()))

    def get_config(self):
        return {"max_value": self.max_value, "axis": self.axis}


@CONSTRAINTS.register("min_max_norm")
class MinMaxNorm(Constraint):
    """Keeps the norm along ``axis`` within ``[min_value, max_value]`` (moved by ``rate``)."""

    def __init__(self, min_value=0.0, max_value=1.0, rate=1.0, axis=0):
        self.min_value, self.max_value, self.rate, self.axis = min_value, max_value, rate, axis

    def __call__(self, w):
        norms = _norms(w, self.axis)
        clipped = state.backend().xp.clip(norms, self.min_value, self.max_value)
        desired = self.rate * clipped + (1 - self.rate) * norms
        return w * (desired / (norms + state.epsilon()))

    def get_config(self):
        return {"min_value": self.min_value, "max_value": self.max_value, "rate": self.rate,
                "axis": self.axis}


@CONSTRAINTS.register("unit_norm")
class UnitNorm(Constraint):
    """Weights have unit norm along ``axis``."""

    def __init__(self, axis=0):
        self.axis = axis

    def __call__(self, w):
        return w / (state.epsilon() + _norms(w, self.axis))

    def get_config(self):
        return {"axis": self.axis}


# Keras' lower-case spellings are the classes themselves.
max_norm, min_max_norm, non_neg, unit_norm = MaxNorm, MinMaxNorm, NonNeg, UnitNorm


def get(identifier):
    """Resolve ``None``, a name, a config dict, an instance or a callable."""
    if identifier is None:
        return None
    return CONSTRAINTS.resolve(identifier, Constraint, "a name, config dict or Constraint")


def serialize(constraint):
    """``None``, ``{"class_name", "config"}``, or a plain function's name."""
    if constraint is None:
        return None
    if isinstance(constraint, Constraint):
        return _serialize(constraint)
    return getattr(constraint, "__name__", repr(constraint))


def deserialize(config, custom_objects=None):
    """A constraint from a name or a ``{"class_name", "config"}`` dict (Keras 2 or 3)."""
    return _deserialize(CONSTRAINTS, config, custom_objects)


__all__ = [
    "CONSTRAINTS", "Constraint", "MaxNorm", "MinMaxNorm", "NonNeg", "UnitNorm",
    "deserialize", "get", "max_norm", "min_max_norm", "non_neg", "serialize", "unit_norm",
]

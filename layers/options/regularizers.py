"""Weight and activity regularizers (``keras.regularizers``): ``L1``, ``L2``, ``L1L2``,
``OrthogonalRegularizer``, by Keras name (``"l1"``, ``"l2"``, ``"l1_l2"``,
``"orthogonal_regularizer"``) or lower-case callable (``regularizers.l2(0.01)``)."""

import numpy as np

from ...backends import ops
from ...backends.registry import Registry
from ..configurable import Configurable
from ..configurable import deserialize as _deserialize
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


@REGULARIZERS.register("orthogonal_regularizer")
class OrthogonalRegularizer(Regularizer):
    """Pushes the rows (``mode="rows"``) or columns (``"columns"``) of a 2-D weight to be
    orthogonal: ``factor * 0.5 * sum(|off-diagonal cosine similarities|) / pairs``."""

    def __init__(self, factor=0.01, mode="rows"):
        if mode not in ("rows", "columns"):
            raise ValueError(f"OrthogonalRegularizer: `mode` must be 'rows' or 'columns', "
                             f"got mode={mode!r}")
        self.factor, self.mode = float(factor), mode

    def __call__(self, x):
        if len(x.shape) != 2:
            raise ValueError(f"Inputs to OrthogonalRegularizer must have rank 2. Received: "
                             f"inputs.shape={tuple(x.shape)}")
        axis = 1 if self.mode == "rows" else 0
        norms = ops.sqrt(ops.maximum(ops.sum(ops.square(x), axis=axis, keepdims=True), 1e-12))
        unit = ops.divide(x, norms)
        if self.mode == "columns":
            unit = ops.transpose(unit)
        product = ops.matmul(unit, ops.transpose(unit))
        size = unit.shape[0]
        off_diagonal = ops.multiply(product, 1.0 - np.eye(size, dtype=product.dtype))
        pairs = size * (size - 1.0) / 2.0
        return ops.sum(ops.abs(off_diagonal)) * (self.factor * 0.5 / pairs)

    def get_config(self):
        return {"factor": self.factor, "mode": self.mode}


# Keras' lower-case spellings are the classes themselves.
l1, l2, l1_l2, orthogonal_regularizer = L1, L2, L1L2, OrthogonalRegularizer


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


def deserialize(config, custom_objects=None):
    """A regularizer from a name or a ``{"class_name", "config"}`` dict (Keras 2 or 3)."""
    return _deserialize(REGULARIZERS, config, custom_objects)


__all__ = [
    "L1", "L1L2", "L2", "OrthogonalRegularizer", "REGULARIZERS", "Regularizer",
    "deserialize", "get", "l1", "l1_l2", "l2", "orthogonal_regularizer", "serialize",
]

"""Hinge losses for maximum-margin classifiers: hinge, squared hinge and categorical hinge
(``keras.losses`` names and defaults)."""

from ...backends import ops
from ...backends import state
from .loss import LossFunctionWrapper
from .loss_utils import unwrap, prepare


def _hinge_labels(y_true):
    """Binary 0/1 labels become -1/1 (other labels are used as given)."""
    xp = state.backend().xp
    values = unwrap(y_true)
    if bool(xp.all((values == 0) | (values == 1))):
        return ops.subtract(ops.multiply(y_true, 2.0), 1.0)
    return y_true


def hinge(y_true, y_pred):
    """``mean(maximum(1 - y_true * y_pred, 0), axis=-1)``; 0/1 labels map to -1/1."""
    y_true, y_pred = prepare(y_true, y_pred)
    y_true = _hinge_labels(y_true)
    return ops.mean(ops.relu(ops.subtract(1.0, ops.multiply(y_true, y_pred))), axis=-1)


def squared_hinge(y_true, y_pred):
    """``mean(square(maximum(1 - y_true * y_pred, 0)), axis=-1)``; 0/1 labels map to -1/1."""
    y_true, y_pred = prepare(y_true, y_pred)
    y_true = _hinge_labels(y_true)
    margin = ops.relu(ops.subtract(1.0, ops.multiply(y_true, y_pred)))
    return ops.mean(ops.square(margin), axis=-1)


def categorical_hinge(y_true, y_pred):
    """``maximum(max((1 - y_true) * y_pred) - sum(y_true * y_pred) + 1, 0)`` over the last
    axis, for one-hot ``y_true``."""
    y_true, y_pred = prepare(y_true, y_pred)
    positive = ops.sum(ops.multiply(y_true, y_pred), axis=-1)
    negative = ops.max(ops.multiply(ops.subtract(1.0, y_true), y_pred), axis=-1)
    return ops.relu(ops.add(ops.subtract(negative, positive), 1.0))


class Hinge(LossFunctionWrapper):
    """Hinge loss for -1/1 labels (0/1 labels are converted)."""

    def __init__(self, reduction="sum_over_batch_size", name="hinge", dtype=None):
        super().__init__(hinge, reduction=reduction, name=name, dtype=dtype)


class SquaredHinge(LossFunctionWrapper):
    """Squared hinge loss for -1/1 labels (0/1 labels are converted)."""

    def __init__(self, reduction="sum_over_batch_size", name="squared_hinge", dtype=None):
        super().__init__(squared_hinge, reduction=reduction, name=name, dtype=dtype)


class CategoricalHinge(LossFunctionWrapper):
    """Categorical hinge loss of one-hot labels."""

    def __init__(self, reduction="sum_over_batch_size", name="categorical_hinge",
                 dtype=None):
        super().__init__(categorical_hinge, reduction=reduction, name=name, dtype=dtype)

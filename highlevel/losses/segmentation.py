"""Overlap losses for segmentation: Dice and Tversky (``keras.losses`` names and
defaults). With ``axis=None`` (Keras' default) the whole batch gives one loss value."""

from ...backends import ops
from .loss import LossFunctionWrapper
from .loss_utils import epsilon, as_pred, as_true, cast_to


def _overlap_inputs(y_true, y_pred):
    y_pred = as_pred(y_pred)
    return cast_to(as_true(y_true), y_pred.dtype), y_pred


def dice(y_true, y_pred, axis=None):
    """``1 - 2 * sum(y_true * y_pred) / (sum(y_true) + sum(y_pred) + eps)`` over ``axis``."""
    y_true, y_pred = _overlap_inputs(y_true, y_pred)
    intersection = ops.sum(ops.multiply(y_true, y_pred), axis=axis)
    total = ops.add(ops.add(ops.sum(y_true, axis=axis), ops.sum(y_pred, axis=axis)), epsilon())
    return ops.subtract(1.0, ops.divide(ops.multiply(intersection, 2.0), total))


def tversky(y_true, y_pred, alpha=0.5, beta=0.5, axis=None):
    """``1 - tp / (tp + alpha * fp + beta * fn + eps)`` with soft counts over ``axis``
    (``alpha = beta = 0.5`` is the Dice loss)."""
    y_true, y_pred = _overlap_inputs(y_true, y_pred)
    intersection = ops.sum(ops.multiply(y_true, y_pred), axis=axis)
    false_positives = ops.sum(ops.multiply(ops.subtract(1.0, y_pred), y_true), axis=axis)
    false_negatives = ops.sum(ops.multiply(y_pred, ops.subtract(1.0, y_true)), axis=axis)
    denominator = ops.add(ops.add(intersection, ops.multiply(false_positives, alpha)),
                          ops.add(ops.multiply(false_negatives, beta), epsilon()))
    return ops.subtract(1.0, ops.divide(intersection, denominator))


class Dice(LossFunctionWrapper):
    """Dice loss; ``axis=None`` reduces the whole batch to one value."""

    def __init__(self, reduction="sum_over_batch_size", name="dice", axis=None, dtype=None):
        super().__init__(dice, reduction=reduction, name=name, dtype=dtype, axis=axis)
        self.axis = axis


class Tversky(LossFunctionWrapper):
    """Tversky loss: ``alpha`` weighs false positives, ``beta`` false negatives."""

    def __init__(self, alpha=0.5, beta=0.5, reduction="sum_over_batch_size", name="tversky",
                 axis=None, dtype=None):
        super().__init__(tversky, reduction=reduction, name=name, dtype=dtype, alpha=alpha,
                         beta=beta, axis=axis)
        self.alpha, self.beta, self.axis = alpha, beta, axis

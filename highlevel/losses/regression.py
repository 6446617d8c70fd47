"""Regression losses: mean squared / absolute / absolute-percentage / squared-logarithmic
error, Huber, log-cosh and cosine similarity (``keras.losses`` names and defaults)."""

import math

from ...backends import ops
from .loss import LossFunctionWrapper
from .loss_utils import epsilon, unwrap, prepare

_LOG2 = math.log(2.0)


def mean_squared_error(y_true, y_pred):
    """``mean(square(y_true - y_pred), axis=-1)``."""
    y_true, y_pred = prepare(y_true, y_pred)
    return ops.mean_squared_error(y_true, y_pred)


def mean_absolute_error(y_true, y_pred):
    """``mean(abs(y_true - y_pred), axis=-1)``."""
    y_true, y_pred = prepare(y_true, y_pred)
    return ops.mean(ops.abs(ops.subtract(y_true, y_pred)), axis=-1)


def mean_absolute_percentage_error(y_true, y_pred):
    """``100 * mean(abs((y_true - y_pred) / maximum(abs(y_true), eps)), axis=-1)``."""
    y_true, y_pred = prepare(y_true, y_pred)
    diff = ops.abs(ops.divide(ops.subtract(y_true, y_pred),
                              ops.maximum(ops.abs(y_true), epsilon())))
    return ops.multiply(ops.mean(diff, axis=-1), 100.0)


def mean_squared_logarithmic_error(y_true, y_pred):
    """``mean(square(log(max(y_pred, eps) + 1) - log(max(y_true, eps) + 1)), axis=-1)``."""
    y_true, y_pred = prepare(y_true, y_pred)
    first = ops.log(ops.add(ops.maximum(y_pred, epsilon()), 1.0))
    second = ops.log(ops.add(ops.maximum(y_true, epsilon()), 1.0))
    return ops.mean(ops.square(ops.subtract(first, second)), axis=-1)


def huber(y_true, y_pred, delta=1.0):
    """Quadratic for ``|error| <= delta``, linear beyond; mean over the last axis."""
    y_true, y_pred = prepare(y_true, y_pred)
    error = ops.subtract(y_pred, y_true)
    abs_error = ops.abs(error)
    quadratic = ops.multiply(ops.square(error), 0.5)
    linear = ops.subtract(ops.multiply(abs_error, float(delta)), 0.5 * float(delta) ** 2)
    return ops.mean(ops.where(unwrap(abs_error) <= delta, quadratic, linear), axis=-1)


def log_cosh(y_true, y_pred):
    """``mean(log(cosh(y_pred - y_true)), axis=-1)``, computed as
    ``x + softplus(-2x) - log(2)`` (no overflow)."""
    y_true, y_pred = prepare(y_true, y_pred)
    x = ops.subtract(y_pred, y_true)
    return ops.mean(ops.subtract(ops.add(x, ops.softplus(ops.multiply(x, -2.0))), _LOG2),
                    axis=-1)


def l2_normalize(x, axis=-1):
    """``x / max(norm(x, axis), eps)`` as Keras' ``normalize`` (a zero vector stays 0 and
    has a finite gradient)."""
    squares = ops.sum(ops.square(x), axis=axis, keepdims=True)
    return ops.divide(x, ops.sqrt(ops.maximum(squares, epsilon() * epsilon())))


def cosine_similarity(y_true, y_pred, axis=-1):
    """``-sum(l2_normalize(y_true) * l2_normalize(y_pred), axis)``: -1 for parallel
    vectors, 0 for orthogonal ones."""
    y_true, y_pred = prepare(y_true, y_pred)
    products = ops.multiply(l2_normalize(y_true, axis), l2_normalize(y_pred, axis))
    return ops.negative(ops.sum(products, axis=axis))


class MeanSquaredError(LossFunctionWrapper):
    """Mean of the squared errors over the last axis."""

    def __init__(self, reduction="sum_over_batch_size", name="mean_squared_error",
                 dtype=None):
        super().__init__(mean_squared_error, reduction=reduction, name=name, dtype=dtype)


class MeanAbsoluteError(LossFunctionWrapper):
    """Mean of the absolute errors over the last axis."""

    def __init__(self, reduction="sum_over_batch_size", name="mean_absolute_error",
                 dtype=None):
        super().__init__(mean_absolute_error, reduction=reduction, name=name, dtype=dtype)


class MeanAbsolutePercentageError(LossFunctionWrapper):
    """``100 *`` the mean absolute relative error over the last axis."""

    def __init__(self, reduction="sum_over_batch_size",
                 name="mean_absolute_percentage_error", dtype=None):
        super().__init__(mean_absolute_percentage_error, reduction=reduction, name=name,
                         dtype=dtype)


class MeanSquaredLogarithmicError(LossFunctionWrapper):
    """Mean squared error of ``log(1 + x)`` over the last axis."""

    def __init__(self, reduction="sum_over_batch_size",
                 name="mean_squared_logarithmic_error", dtype=None):
        super().__init__(mean_squared_logarithmic_error, reduction=reduction, name=name,
                         dtype=dtype)


class Huber(LossFunctionWrapper):
    """Huber loss: quadratic for ``|error| <= delta``, linear beyond."""

    def __init__(self, delta=1.0, reduction="sum_over_batch_size", name="huber_loss",
                 dtype=None):
        super().__init__(huber, reduction=reduction, name=name, dtype=dtype, delta=delta)
        self.delta = delta


class LogCosh(LossFunctionWrapper):
    """Mean of ``log(cosh(y_pred - y_true))`` over the last axis."""

    def __init__(self, reduction="sum_over_batch_size", name="log_cosh", dtype=None):
        super().__init__(log_cosh, reduction=reduction, name=name, dtype=dtype)


class CosineSimilarity(LossFunctionWrapper):
    """Negative cosine similarity along ``axis`` (-1 is the best value)."""

    def __init__(self, axis=-1, reduction="sum_over_batch_size", name="cosine_similarity",
                 dtype=None):
        super().__init__(cosine_similarity, reduction=reduction, name=name, dtype=dtype,
                         axis=axis)
        self.axis = axis

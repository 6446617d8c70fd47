"""Regression metrics: mean squared / absolute / absolute-percentage / squared-logarithmic
error, root mean squared error, log-cosh error, cosine similarity and the R2 score
(``keras.metrics`` names, arguments and results)."""

import warnings

import numpy as np

from ...backends import state
from ..losses.regression import (cosine_similarity, huber,  # noqa: F401  (re-exported)
                                 log_cosh, mean_squared_logarithmic_error)
from ..losses.loss_utils import epsilon
from .metric import Metric, float_array, result_value, aligned_floats
from .reduction_metrics import Mean, wrapped


def _regression(fn, name):
    def metric(y_true, y_pred):
        y_true, y_pred = aligned_floats(y_true, y_pred)
        return fn(state.backend().xp, y_true, y_pred)

    metric.__name__ = name
    return metric


mean_squared_error = _regression(lambda xp, t, p: xp.square(t - p).mean(axis=-1),
                                 "mean_squared_error")
mean_absolute_error = _regression(lambda xp, t, p: xp.abs(t - p).mean(axis=-1),
                                  "mean_absolute_error")
mean_absolute_percentage_error = _regression(
    lambda xp, t, p: 100.0 * xp.abs((t - p) / xp.maximum(xp.abs(t), epsilon())).mean(axis=-1),
    "mean_absolute_percentage_error")

MeanSquaredError = wrapped("MeanSquaredError", mean_squared_error, "mean_squared_error",
                           "Mean of the squared errors.")
MeanAbsoluteError = wrapped("MeanAbsoluteError", mean_absolute_error,
                            "mean_absolute_error", "Mean of the absolute errors.")
MeanAbsolutePercentageError = wrapped(
    "MeanAbsolutePercentageError", mean_absolute_percentage_error,
    "mean_absolute_percentage_error", "Mean absolute percentage error.")
MeanSquaredLogarithmicError = wrapped(
    "MeanSquaredLogarithmicError", mean_squared_logarithmic_error,
    "mean_squared_logarithmic_error", "Mean squared logarithmic error.")
LogCoshError = wrapped("LogCoshError", log_cosh, "logcosh", "Mean of log(cosh(error)).")


def _cosine_similarity(y_true, y_pred, axis=-1):
    """Cosine similarity along ``axis`` (the loss' sign flipped)."""
    return -cosine_similarity(y_true, y_pred, axis)


CosineSimilarity = wrapped(
    "CosineSimilarity", _cosine_similarity, "cosine_similarity",
    "Mean cosine similarity along ``axis`` (1 for parallel vectors).",
    axis=-1)


class RootMeanSquaredError(Mean):
    """Square root of the (weighted) mean squared error."""

    def __init__(self, name="root_mean_squared_error", dtype=None):
        super().__init__(name=name, dtype=dtype)

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Accumulate the squared errors of one batch."""
        y_true, y_pred = aligned_floats(y_true, y_pred)
        super().update_state(state.backend().xp.square(y_pred - y_true), sample_weight)

    def result(self):
        """``sqrt`` of the running mean squared error."""
        return float(np.sqrt(super().result()))


class R2Score(Metric):
    """Coefficient of determination ``1 - SS_res / SS_tot`` per output, aggregated by
    ``class_aggregation`` (``"uniform_average"``, ``"variance_weighted_average"`` or
    ``None`` for one score per output); ``num_regressors > 0`` gives the adjusted R2.
    Inputs are 2-D ``(samples, outputs)``."""

    def __init__(self, class_aggregation="uniform_average", num_regressors=0,
                 name="r2_score", dtype=None):
        super().__init__(name=name, dtype=dtype)
        if class_aggregation not in (None, "uniform_average", "variance_weighted_average"):
            raise ValueError(f"Invalid value for argument `class_aggregation`. Expected one "
                             f"of (None, 'uniform_average', 'variance_weighted_average'). "
                             f"Received: class_aggregation={class_aggregation}")
        if num_regressors < 0:
            raise ValueError(f"Invalid value for argument `num_regressors`. Expected a "
                             f"value >= 0. Received: num_regressors={num_regressors}")
        self.class_aggregation = class_aggregation
        self.num_regressors = num_regressors
        self._add_state("num_samples")
        self._built = False

    def _build(self, y_true_shape):
        if len(y_true_shape) != 2:
            raise ValueError(f"R2Score expects 2D inputs with shape (batch_size, "
                             f"output_dim). Received input shape: y_true.shape="
                             f"{tuple(y_true_shape)}")
        for counter in ("sum", "squared_sum", "total_mse", "count"):
            self._add_state(counter, (y_true_shape[-1],))
        self._built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Accumulate the sums of one batch."""
        y_true, y_pred = aligned_floats(y_true, y_pred)
        if not self._built:
            self._build(y_true.shape)
        xp = state.backend().xp
        weights = xp.ones((), y_true.dtype) if sample_weight is None else \
            float_array(sample_weight, y_true.dtype)
        if weights.ndim == 1:
            weights = weights[:, None]
        weights = xp.broadcast_to(weights, y_true.shape)
        weighted = y_true * weights
        self.sum += weighted.sum(axis=0)
        self.squared_sum += (y_true * weighted).sum(axis=0)
        self.total_mse += ((y_true - y_pred) ** 2 * weights).sum(axis=0)
        self.count += weights.sum(axis=0)
        self.num_samples += y_true.size

    def result(self):
        """The (adjusted) R2 score."""
        xp = state.backend().xp
        if not self._built:
            return 0.0
        mean = self.sum / self.count
        total = self.squared_sum - self.sum * mean
        with np.errstate(divide="ignore", invalid="ignore"):
            raw = 1 - self.total_mse / total
        raw = xp.where(xp.isinf(raw), 0.0, raw)
        if self.class_aggregation == "uniform_average":
            score = raw.mean()
        elif self.class_aggregation == "variance_weighted_average":
            score = (total * raw).sum() / total.sum()
        else:
            score = raw
        samples = float(self.num_samples)
        if self.num_regressors:
            if self.num_regressors >= samples - 1:
                warnings.warn("Adjusted R2 score needs more datapoints than predictors + 1; "
                              "falling back to the standard R2 score.", stacklevel=2)
            else:
                score = 1 - (1 - score) * (samples - 1) / (samples - self.num_regressors - 1)
        return result_value(xp.asarray(score).astype(self.dtype))

    def get_config(self):
        """Keras' config."""
        return {**super().get_config(), "class_aggregation": self.class_aggregation,
                "num_regressors": self.num_regressors}

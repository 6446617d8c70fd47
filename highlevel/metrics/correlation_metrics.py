"""Correlation metrics: Pearson's and Lin's concordance correlation coefficients per
sample along ``axis``, averaged over samples (``keras.metrics``, Keras 3.9+)."""

from ...backends import state
from ..losses.loss_utils import epsilon
from .metric import aligned_floats
from .reduction_metrics import wrapped


def pearson_correlation(y_true, y_pred, axis=-1):
    """Pearson correlation of ``y_true`` and ``y_pred`` along ``axis``."""
    y_true, y_pred = aligned_floats(y_true, y_pred)
    t = y_true - y_true.mean(axis=axis, keepdims=True)
    p = y_pred - y_pred.mean(axis=axis, keepdims=True)
    t = t / t.std(axis=axis, keepdims=True)
    p = p / p.std(axis=axis, keepdims=True)
    return (t * p).mean(axis=axis)


def concordance_correlation(y_true, y_pred, axis=-1):
    """Lin's concordance correlation along ``axis``:
    ``2 cov / (var_true + var_pred + (mean_true - mean_pred)**2)``, as Keras computes it."""
    y_true, y_pred = aligned_floats(y_true, y_pred)
    true_mean = y_true.mean(axis=axis, keepdims=True)
    pred_mean = y_pred.mean(axis=axis, keepdims=True)
    true_var = (y_true - true_mean).var(axis=axis, keepdims=True)
    pred_var = (y_pred - pred_mean).var(axis=axis, keepdims=True)
    covariance = (y_true - pred_mean) * (y_pred - pred_mean)
    norm = true_var + pred_var + state.backend().xp.square(true_mean - pred_mean)
    return (2 * covariance / (norm + epsilon())).mean(axis=axis)


PearsonCorrelation = wrapped("PearsonCorrelation", pearson_correlation,
                             "pearson_correlation",
                             "Mean Pearson correlation along ``axis``.", axis=-1)
ConcordanceCorrelation = wrapped("ConcordanceCorrelation", concordance_correlation,
                                 "concordance_correlation",
                                 "Mean concordance correlation along ``axis``.", axis=-1)

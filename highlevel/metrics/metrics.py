"""``keras.metrics``: every metric by class (and the per-sample metric functions), the
:data:`METRICS` registry and :func:`get` / :func:`serialize` / :func:`deserialize`.

A :class:`Metric` accumulates over ``update_state(y_true, y_pred, sample_weight=None)``
calls and reports with ``result()``; ``reset_state()`` starts over. Metrics compute on the
engine's raw arrays (no autodiff graph is recorded) and keep their running totals on the
engine, so nothing leaves the device until ``result()``. The families live in their own
modules (reduction, accuracy, regression, probabilistic and hinge, correlation,
confusion-matrix, sensitivity/specificity, IoU and F-score metrics); all are re-exported
here.

Example:
    >>> from lamina.highlevel import metrics
    >>> m = metrics.SparseCategoricalAccuracy()
    >>> m.update_state([1, 0], [[0.1, 0.9], [0.8, 0.2]])
    >>> m.result()
    1.0
"""

from ...backends.registry import Registry
from ...layers.naming import snake_case
from ..losses import losses as losses_module
from ..losses.regression import huber, log_cosh, mean_squared_logarithmic_error
from .accuracy_metrics import (Accuracy, BinaryAccuracy, CategoricalAccuracy,
                               SparseCategoricalAccuracy, SparseTopKCategoricalAccuracy,
                               TopKCategoricalAccuracy, accuracy, binary_accuracy,
                               categorical_accuracy, in_top_k, sparse_categorical_accuracy,
                               sparse_top_k_categorical_accuracy, top_k_categorical_accuracy)
from .confusion_metrics import (AUC, FalseNegatives, FalsePositives, Precision, Recall,
                                TrueNegatives, TruePositives)
from .correlation_metrics import (ConcordanceCorrelation, PearsonCorrelation,
                                  concordance_correlation, pearson_correlation)
from .f_score_metrics import F1Score, FBetaScore
from .iou_metrics import IoU, BinaryIoU, MeanIoU, OneHotIoU, OneHotMeanIoU
from .metric import Metric
from .probabilistic_metrics import (BinaryCrossentropy, CategoricalCrossentropy,
                                    CategoricalHinge, Hinge, KLDivergence, Poisson,
                                    SparseCategoricalCrossentropy, SquaredHinge,
                                    binary_crossentropy, binary_focal_crossentropy,
                                    categorical_crossentropy, categorical_focal_crossentropy,
                                    categorical_hinge, hinge, kl_divergence, poisson,
                                    sparse_categorical_crossentropy, squared_hinge)
from .reduction_metrics import METRIC_FUNCTIONS, Mean, MeanMetricWrapper, Sum
from .regression_metrics import (CosineSimilarity, LogCoshError, MeanAbsoluteError,
                                 MeanAbsolutePercentageError, MeanSquaredError,
                                 MeanSquaredLogarithmicError, R2Score, RootMeanSquaredError,
                                 mean_absolute_error, mean_absolute_percentage_error,
                                 mean_squared_error)
from .sensitivity_metrics import (PrecisionAtRecall, RecallAtPrecision,
                                  SensitivityAtSpecificity, SpecificityAtSensitivity)

METRICS = Registry("metric")

_FUNCTIONS = {
    fn.__name__: fn for fn in (
        accuracy, binary_accuracy, categorical_accuracy, sparse_categorical_accuracy,
        top_k_categorical_accuracy, sparse_top_k_categorical_accuracy, mean_squared_error,
        mean_absolute_error, mean_absolute_percentage_error, mean_squared_logarithmic_error,
        log_cosh, huber, hinge, squared_hinge, categorical_hinge, kl_divergence, poisson,
        binary_crossentropy, binary_focal_crossentropy, categorical_crossentropy,
        categorical_focal_crossentropy, sparse_categorical_crossentropy,
        pearson_correlation, concordance_correlation)
}
for _name, _fn in _FUNCTIONS.items():
    METRIC_FUNCTIONS.add(_name, _fn)


# ---------------------------------------------------------------------------- registry
_CLASSES = [
    Mean, Sum, MeanMetricWrapper, Accuracy, BinaryAccuracy, CategoricalAccuracy,
    SparseCategoricalAccuracy, TopKCategoricalAccuracy, SparseTopKCategoricalAccuracy,
    MeanSquaredError, RootMeanSquaredError, MeanAbsoluteError, MeanAbsolutePercentageError,
    MeanSquaredLogarithmicError, LogCoshError, Hinge, SquaredHinge, KLDivergence, Poisson,
    BinaryCrossentropy, CategoricalCrossentropy, SparseCategoricalCrossentropy, Precision,
    Recall, TruePositives, FalsePositives, TrueNegatives, FalseNegatives, AUC,
    CategoricalHinge, CosineSimilarity, R2Score, PearsonCorrelation, ConcordanceCorrelation,
    F1Score, FBetaScore, IoU, BinaryIoU, MeanIoU, OneHotIoU, OneHotMeanIoU,
    PrecisionAtRecall, RecallAtPrecision, SensitivityAtSpecificity, SpecificityAtSensitivity,
]
for _cls in _CLASSES:
    METRICS.add(_cls.__name__, _cls)
    METRICS.add(snake_case(_cls.__name__), _cls)
for _alias, _cls in {"mse": MeanSquaredError, "MSE": MeanSquaredError,
                     "mae": MeanAbsoluteError, "MAE": MeanAbsoluteError,
                     "mape": MeanAbsolutePercentageError,
                     "MAPE": MeanAbsolutePercentageError,
                     "msle": MeanSquaredLogarithmicError,
                     "MSLE": MeanSquaredLogarithmicError, "bce": BinaryCrossentropy,
                     "BCE": BinaryCrossentropy, "acc": Accuracy, "logcosh": LogCoshError,
                     "rmse": RootMeanSquaredError, "fbeta_score": FBetaScore}.items():
    METRICS.add(_alias, _cls)
for _name, _fn in _FUNCTIONS.items():      # functions without a class of the same name
    if _name not in METRICS:
        METRICS.add(_name, _fn)


def _loss_kind(loss):
    """``"binary"``, ``"sparse"``, ``"categorical"`` or None for a loss identifier."""
    if loss is None:
        return None
    try:
        resolved = losses_module.get(loss)
    except (ValueError, TypeError):
        return None
    if isinstance(resolved, losses_module.LossFunctionWrapper):
        fn = resolved.fn
        if fn is losses_module.binary_crossentropy:
            return "binary"
        if fn is losses_module.sparse_categorical_crossentropy:
            return "sparse"
        if fn is losses_module.categorical_crossentropy:
            return "categorical"
    return None


def _accuracy_for(name, loss, output_shape, y_true_shape):
    """Keras' choice of accuracy for ``"accuracy"``/``"acc"``."""
    kind = _loss_kind(loss)
    out_last = None if not output_shape else output_shape[-1]
    if out_last == 1 or kind == "binary":
        return BinaryAccuracy(name=name)
    if kind == "sparse":
        return SparseCategoricalAccuracy(name=name)
    if kind is None and y_true_shape is not None and output_shape:
        if len(y_true_shape) < len(output_shape) or (y_true_shape[-1] == 1 and
                                                     (out_last or 0) > 1):
            return SparseCategoricalAccuracy(name=name)
    return CategoricalAccuracy(name=name)


def serialize(metric):
    """A Metric as Keras 3 serializes it."""
    return {"module": "keras.metrics", "class_name": type(metric).__name__,
            "config": metric.get_config(), "registered_name": None}


def deserialize(config, custom_objects=None):
    """Rebuild a metric from a ``{"class_name", "config"}`` dict or a name."""
    if isinstance(config, str):
        return get(config, custom_objects=custom_objects)
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"cannot deserialize a metric from {config!r}: expected a name or "
                         "a dict with 'class_name' and 'config'")
    if config["class_name"] == "function":
        return get(config["config"], custom_objects=custom_objects)
    cls = METRICS.lookup(config["class_name"], custom_objects)
    inner = dict(config.get("config") or {})
    if isinstance(cls, type):
        return cls.from_config(inner)
    return MeanMetricWrapper(cls, **inner)


def get(identifier, loss=None, output_shape=None, y_true_shape=None, custom_objects=None):
    """Resolve a metric identifier into a :class:`Metric` instance (Keras' compile rules).

    ``"accuracy"``/``"acc"`` become BinaryAccuracy when the loss is binary cross-entropy or
    the output has one unit, SparseCategoricalAccuracy for sparse categorical
    cross-entropy (or integer targets, when ``y_true_shape`` says so), otherwise
    CategoricalAccuracy. A string keeps its spelling as the metric's name (``"mae"`` logs
    ``mae``), as in Keras 3. Dicts, Metric classes/instances and plain functions
    ``fn(y_true, y_pred) -> per-sample values`` are accepted; unknown names raise
    ``ValueError`` listing the known ones.
    """
    if identifier is None or isinstance(identifier, Metric):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier, custom_objects)
    if isinstance(identifier, str):
        if identifier.lower() in ("accuracy", "acc"):
            return _accuracy_for(identifier, loss, output_shape, y_true_shape)
        found = METRICS.lookup(identifier, custom_objects)
        metric = found() if isinstance(found, type) else MeanMetricWrapper(found)
        metric.name = identifier
        return metric
    if isinstance(identifier, type) and issubclass(identifier, Metric):
        return identifier()
    if callable(identifier):
        return MeanMetricWrapper(identifier)
    raise ValueError(f"Could not interpret metric identifier: {identifier!r}")


__all__ = [
    "AUC", "Accuracy", "BinaryAccuracy", "BinaryCrossentropy", "BinaryIoU",
    "CategoricalAccuracy", "CategoricalCrossentropy", "CategoricalHinge",
    "ConcordanceCorrelation", "CosineSimilarity", "F1Score", "FBetaScore", "FalseNegatives",
    "FalsePositives", "Hinge", "IoU", "KLDivergence", "LogCoshError", "METRICS", "Mean",
    "MeanAbsoluteError", "MeanAbsolutePercentageError", "MeanIoU", "MeanMetricWrapper",
    "MeanSquaredError", "MeanSquaredLogarithmicError", "Metric", "OneHotIoU",
    "OneHotMeanIoU", "PearsonCorrelation", "Poisson", "Precision", "PrecisionAtRecall",
    "R2Score", "Recall", "RecallAtPrecision", "RootMeanSquaredError",
    "SensitivityAtSpecificity", "SparseCategoricalAccuracy", "SparseCategoricalCrossentropy",
    "SparseTopKCategoricalAccuracy", "SpecificityAtSensitivity", "SquaredHinge", "Sum",
    "TopKCategoricalAccuracy", "TrueNegatives", "TruePositives", "accuracy",
    "binary_accuracy", "binary_crossentropy", "binary_focal_crossentropy",
    "categorical_accuracy", "categorical_crossentropy", "categorical_focal_crossentropy",
    "categorical_hinge", "concordance_correlation", "deserialize", "get", "hinge", "huber",
    "in_top_k", "kl_divergence", "log_cosh", "mean_absolute_error",
    "mean_absolute_percentage_error", "mean_squared_error", "mean_squared_logarithmic_error",
    "pearson_correlation", "poisson", "serialize", "sparse_categorical_accuracy",
    "sparse_categorical_crossentropy", "sparse_top_k_categorical_accuracy", "squared_hinge",
    "top_k_categorical_accuracy",
]

"""Stateful metrics (``keras.metrics``): Keras 3 names, arguments, defaults and results.

A :class:`Metric` accumulates over ``update_state(y_true, y_pred, sample_weight=None)``
calls and reports with ``result()``; ``reset_state()`` starts over. Metrics compute on the
engine's raw arrays (no autodiff graph is recorded) and keep their running totals on the
engine, so nothing leaves the device until ``result()``.

This module holds the mean-based metrics (sums, means, accuracies, regression errors,
wrapped loss functions), the :data:`METRICS` registry and :func:`get`; it re-exports the
base class (:mod:`.metric_base`) and the confusion-matrix metrics
(:mod:`.confusion_metrics`: Precision, Recall, the counts and AUC).

Example:
    >>> from lamina.highlevel import metrics
    >>> m = metrics.SparseCategoricalAccuracy()
    >>> m.update_state([1, 0], [[0.1, 0.9], [0.8, 0.2]])
    >>> m.result()
    1.0
"""

import numpy as np

from ...backends import state
from ...backends.autodiff import Tensor, no_grad
from ...backends.registry import Registry
from ...layers.base import snake_case
from ..losses import losses as losses_module
from .confusion_metrics import (AUC, NEG_INF, FalseNegatives, FalsePositives, Precision,
                                Recall, TrueNegatives, TruePositives)
from ..losses.loss_utils import EPSILON, squeeze_or_expand_to_same_rank
from .metric import Metric, _array, _float, _result_value, _samplewise

METRICS = Registry("metric")


# ---------------------------------------------------------------------- reductions
class Sum(Metric):
    """Running (weighted) sum of the values."""

    def __init__(self, name="sum", dtype=None):
        super().__init__(dtype=dtype, name=name)
        self._add_state("total")

    def update_state(self, values, sample_weight=None):
        values, _ = _samplewise(_float(values), sample_weight)
        self.total += values.sum()

    def result(self):
        return _result_value(self.total)


class Mean(Metric):
    """Running (weighted) mean of the values: ``sum(values * w) / sum(w)``."""

    def __init__(self, name="mean", dtype=None):
        super().__init__(dtype=dtype, name=name)
        self._add_state("total")
        self._add_state("count")

    def update_state(self, values, sample_weight=None):
        values = _float(values)
        if values.ndim == 0 and type(sample_weight) in (int, float):
            self.total += values * sample_weight     # a batch loss weighted by batch size
            self.count += sample_weight
            return
        values, weights = _samplewise(values, sample_weight)
        self.total += values.sum()
        if weights is not None:
            self.count += weights.sum()
        else:
            self.count += values.shape[0] if values.ndim else 1

    def result(self):
        count = float(self.count)
        return float(self.total) / count if count else 0.0


class MeanMetricWrapper(Mean):
    """Mean of ``fn(y_true, y_pred, **kwargs)`` over every sample seen.

    ``fn`` may return engine arrays or Tensors (loss functions work: no graph is kept).
    """

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        super().__init__(name=name or getattr(fn, "__name__", "mean_metric_wrapper"),
                         dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true, y_pred = squeeze_or_expand_to_same_rank(_array(y_true), _float(y_pred))
        with no_grad():
            values = self._fn(y_true, y_pred, **self._fn_kwargs)
        super().update_state(values.data if isinstance(values, Tensor) else values,
                             sample_weight)

    def get_config(self):
        config = {**super().get_config(), **self._fn_kwargs}
        if type(self) is MeanMetricWrapper:
            config["fn"] = getattr(self._fn, "__name__", repr(self._fn))
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        if cls is MeanMetricWrapper:
            fn = config.pop("fn")
            if isinstance(fn, str):
                fn = _FUNCTIONS.get(fn)
                if fn is None:
                    raise ValueError(f"unknown metric function {config!r}; known metric "
                                     f"functions: {', '.join(sorted(_FUNCTIONS))}")
            return cls(fn, **config)
        config.pop("fn", None)
        return cls(**config)


# --------------------------------------------------------------- metric functions
def _aligned_floats(y_true, y_pred):
    """Both as floating engine arrays in ``y_pred``'s dtype, ranks aligned (Keras)."""
    y_pred = _float(y_pred)
    return squeeze_or_expand_to_same_rank(_float(y_true, y_pred.dtype), y_pred)


def accuracy(y_true, y_pred):
    """1.0 where ``y_true == y_pred`` exactly, else 0.0."""
    y_true, y_pred = _aligned_floats(y_true, y_pred)
    return (y_true == y_pred).astype(state.floatx())


def binary_accuracy(y_true, y_pred, threshold=0.5):
    """1.0 where ``(y_pred > threshold) == y_true``."""
    y_true, y_pred = _aligned_floats(y_true, y_pred)
    return (y_true == (y_pred > threshold)).astype(state.floatx())


def categorical_accuracy(y_true, y_pred):
    """1.0 where ``argmax(y_true) == argmax(y_pred)`` along the last axis."""
    return (_array(y_true).argmax(axis=-1) == _array(y_pred).argmax(axis=-1)) \
        .astype(state.floatx())


def _sparse_targets(y_true, y_pred):
    labels = _array(y_true)
    if labels.ndim == y_pred.ndim and labels.shape[-1] == 1:
        labels = labels.reshape(labels.shape[:-1])
    return labels


def sparse_categorical_accuracy(y_true, y_pred):
    """1.0 where the integer label equals ``argmax(y_pred)`` (labels (n,) or (n, 1))."""
    y_pred = _array(y_pred)
    labels = _sparse_targets(y_true, y_pred)
    return (labels == y_pred.argmax(axis=-1)).astype(state.floatx())


def in_top_k(labels, predictions, k):
    """True where ``predictions[label]`` is at least the k-th largest score (ties count)."""
    xp = state.backend().xp
    classes = predictions.shape[-1]
    flat = predictions.reshape(-1, classes)
    flat_labels = labels.reshape(-1).astype("int64")
    target = flat[xp.arange(flat.shape[0]), flat_labels]
    if k >= classes:
        hits = xp.ones(flat_labels.shape, dtype=bool)
    else:
        kth = -xp.partition(-flat, k - 1, axis=-1)[:, k - 1]
        hits = target >= kth
    return hits.reshape(labels.shape)


def top_k_categorical_accuracy(y_true, y_pred, k=5):
    """1.0 where the one-hot target class is among the ``k`` highest scores."""
    return in_top_k(_array(y_true).argmax(axis=-1), _array(y_pred), k).astype(state.floatx())


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5):
    """1.0 where the integer label is among the ``k`` highest scores."""
    y_pred = _array(y_pred)
    labels = _sparse_targets(y_true, y_pred)
    return in_top_k(labels, y_pred, k).astype(state.floatx())


def _regression(fn):
    def metric(y_true, y_pred):
        y_true, y_pred = _aligned_floats(y_true, y_pred)
        return fn(state.backend().xp, y_true, y_pred)

    return metric


mean_squared_error = _regression(lambda xp, t, p: xp.square(t - p).mean(axis=-1))
mean_absolute_error = _regression(lambda xp, t, p: xp.abs(t - p).mean(axis=-1))
mean_absolute_percentage_error = _regression(
    lambda xp, t, p: 100.0 * xp.abs((t - p) / xp.maximum(xp.abs(t), EPSILON)).mean(axis=-1))
mean_squared_error.__name__ = "mean_squared_error"
mean_absolute_error.__name__ = "mean_absolute_error"
mean_absolute_percentage_error.__name__ = "mean_absolute_percentage_error"

_FUNCTIONS = {
    "accuracy": accuracy, "binary_accuracy": binary_accuracy,
    "categorical_accuracy": categorical_accuracy,
    "sparse_categorical_accuracy": sparse_categorical_accuracy,
    "top_k_categorical_accuracy": top_k_categorical_accuracy,
    "sparse_top_k_categorical_accuracy": sparse_top_k_categorical_accuracy,
    "mean_squared_error": mean_squared_error, "mean_absolute_error": mean_absolute_error,
    "mean_absolute_percentage_error": mean_absolute_percentage_error,
}


# ---------------------------------------------------------------- wrapped metrics
def _wrapped(class_name, fn, default_name, doc, **defaults):
    """A MeanMetricWrapper subclass with Keras' constructor ``(name, dtype, **defaults)``."""
    keys = list(defaults)

    def __init__(self, *args, name=default_name, dtype=None, **kwargs):
        values = dict(defaults)
        values.update(zip(keys, args))
        unknown = set(kwargs) - set(keys)
        if unknown:
            raise TypeError(f"{class_name}() got unexpected arguments {sorted(unknown)}")
        values.update(kwargs)
        MeanMetricWrapper.__init__(self, fn, name=name, dtype=dtype, **values)
        for key, value in values.items():
            setattr(self, key, value)

    __init__.__doc__ = doc
    return type(class_name, (MeanMetricWrapper,),
                {"__init__": __init__, "__doc__": doc, "__module__": __name__})


Accuracy = _wrapped("Accuracy", accuracy, "accuracy",
                    "How often predictions equal labels exactly.")
BinaryAccuracy = _wrapped("BinaryAccuracy", binary_accuracy, "binary_accuracy",
                          "How often ``y_pred > threshold`` matches binary labels.",
                          threshold=0.5)
CategoricalAccuracy = _wrapped("CategoricalAccuracy", categorical_accuracy,
                               "categorical_accuracy",
                               "How often argmax(y_pred) matches argmax of one-hot labels.")
SparseCategoricalAccuracy = _wrapped(
    "SparseCategoricalAccuracy", sparse_categorical_accuracy, "sparse_categorical_accuracy",
    "How often argmax(y_pred) matches integer labels.")
TopKCategoricalAccuracy = _wrapped(
    "TopKCategoricalAccuracy", top_k_categorical_accuracy, "top_k_categorical_accuracy",
    "How often the one-hot target is in the top ``k`` predictions.", k=5)
SparseTopKCategoricalAccuracy = _wrapped(
    "SparseTopKCategoricalAccuracy", sparse_top_k_categorical_accuracy,
    "sparse_top_k_categorical_accuracy",
    "How often the integer target is in the top ``k`` predictions.", k=5)
MeanSquaredError = _wrapped("MeanSquaredError", mean_squared_error, "mean_squared_error",
                            "Mean of the squared errors.")
MeanAbsoluteError = _wrapped("MeanAbsoluteError", mean_absolute_error,
                             "mean_absolute_error", "Mean of the absolute errors.")
MeanAbsolutePercentageError = _wrapped(
    "MeanAbsolutePercentageError", mean_absolute_percentage_error,
    "mean_absolute_percentage_error", "Mean absolute percentage error.")
MeanSquaredLogarithmicError = _wrapped(
    "MeanSquaredLogarithmicError", losses_module.mean_squared_logarithmic_error,
    "mean_squared_logarithmic_error", "Mean squared logarithmic error.")
LogCoshError = _wrapped("LogCoshError", losses_module.log_cosh, "logcosh",
                        "Mean of log(cosh(error)).")
Hinge = _wrapped("Hinge", losses_module.hinge, "hinge", "Mean hinge loss.")
SquaredHinge = _wrapped("SquaredHinge", losses_module.squared_hinge, "squared_hinge",
                        "Mean squared hinge loss.")
KLDivergence = _wrapped("KLDivergence", losses_module.kl_divergence, "kl_divergence",
                        "Mean Kullback-Leibler divergence.")
Poisson = _wrapped("Poisson", losses_module.poisson, "poisson", "Mean Poisson loss.")
BinaryCrossentropy = _wrapped(
    "BinaryCrossentropy", losses_module.binary_crossentropy, "binary_crossentropy",
    "Mean binary cross-entropy.", from_logits=False, label_smoothing=0.0)
CategoricalCrossentropy = _wrapped(
    "CategoricalCrossentropy", losses_module.categorical_crossentropy,
    "categorical_crossentropy", "Mean categorical cross-entropy.",
    from_logits=False, label_smoothing=0.0, axis=-1)
SparseCategoricalCrossentropy = _wrapped(
    "SparseCategoricalCrossentropy", losses_module.sparse_categorical_crossentropy,
    "sparse_categorical_crossentropy", "Mean sparse categorical cross-entropy.",
    from_logits=False, axis=-1)


class RootMeanSquaredError(Mean):
    """Square root of the (weighted) mean squared error."""

    def __init__(self, name="root_mean_squared_error", dtype=None):
        super().__init__(name=name, dtype=dtype)

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true, y_pred = _aligned_floats(y_true, y_pred)
        super().update_state(state.backend().xp.square(y_pred - y_true), sample_weight)

    def result(self):
        return float(np.sqrt(super().result()))


# ---------------------------------------------------------------------------- registry
_CLASSES = [
    Mean, Sum, MeanMetricWrapper, Accuracy, BinaryAccuracy, CategoricalAccuracy,
    SparseCategoricalAccuracy, TopKCategoricalAccuracy, SparseTopKCategoricalAccuracy,
    MeanSquaredError, RootMeanSquaredError, MeanAbsoluteError, MeanAbsolutePercentageError,
    MeanSquaredLogarithmicError, LogCoshError, Hinge, SquaredHinge, KLDivergence, Poisson,
    BinaryCrossentropy, CategoricalCrossentropy, SparseCategoricalCrossentropy, Precision,
    Recall, TruePositives, FalsePositives, TrueNegatives, FalseNegatives, AUC,
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
                     "rmse": RootMeanSquaredError}.items():
    METRICS.add(_alias, _cls)


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
    "AUC", "Accuracy", "BinaryAccuracy", "BinaryCrossentropy", "CategoricalAccuracy",
    "CategoricalCrossentropy", "FalseNegatives", "FalsePositives", "Hinge", "KLDivergence",
    "LogCoshError", "METRICS", "Mean", "MeanAbsoluteError", "MeanAbsolutePercentageError",
    "MeanMetricWrapper", "MeanSquaredError", "MeanSquaredLogarithmicError", "Metric",
    "Poisson", "Precision", "Recall", "RootMeanSquaredError", "SparseCategoricalAccuracy",
    "SparseCategoricalCrossentropy", "SparseTopKCategoricalAccuracy", "SquaredHinge", "Sum",
    "TopKCategoricalAccuracy", "TrueNegatives", "TruePositives", "accuracy",
    "binary_accuracy", "categorical_accuracy", "deserialize", "get", "in_top_k",
    "mean_absolute_error", "mean_absolute_percentage_error", "mean_squared_error",
    "serialize", "sparse_categorical_accuracy", "sparse_top_k_categorical_accuracy",
    "top_k_categorical_accuracy",
]

"""Stateful metrics (``keras.metrics``): Keras 3 names, arguments, defaults and results.

A :class:`Metric` accumulates over ``update_state(y_true, y_pred, sample_weight=None)``
calls and reports with ``result()``; ``reset_state()`` starts over. Metrics compute on the
engine's raw arrays (no autodiff graph is recorded) and keep their running totals on the
engine, so nothing leaves the device until ``result()``.

Example:
    >>> from lamina.highlevel import metrics
    >>> m = metrics.SparseCategoricalAccuracy()
    >>> m.update_state([1, 0], [[0.1, 0.9], [0.8, 0.2]])
    >>> m.result()
    1.0
"""

import numpy as np

from ..backends import state
from ..backends.autodiff import Tensor, as_engine_array, no_grad
from ..backends.registry import Registry
from . import losses as losses_module
from .losses import _snake_case, squeeze_or_expand_to_same_rank

METRICS = Registry("metric")
NEG_INF = -1e10
EPSILON = 1e-7


def _array(x):
    """The engine array behind ``x`` (Tensor, engine/NumPy array, list or number)."""
    return x.data if isinstance(x, Tensor) else as_engine_array(x)


def _float(x, dtype=None):
    """``x`` as a floating engine array (integer/bool arrays become ``floatx()``)."""
    x = _array(x)
    if dtype is not None:
        return x.astype(dtype, copy=False)
    return x if x.dtype.kind == "f" else x.astype(state.floatx())


class Metric:
    """Base class of stateful metrics.

    Subclasses implement ``update_state``, ``result`` and ``reset_state``; the state lives
    in engine arrays created by ``reset_state`` (listed by ``variables``).
    """

    def __init__(self, dtype=None, name=None):
        self.name = name or _snake_case(type(self).__name__)
        self.dtype = dtype or state.floatx()
        self._state_names = ()

    def update_state(self, *args, **kwargs):
        raise NotImplementedError(f"Metric '{type(self).__name__}' must implement update_state")

    def result(self):
        raise NotImplementedError(f"Metric '{type(self).__name__}' must implement result")

    def reset_state(self):
        for name in self._state_names:
            getattr(self, name)[...] = 0

    def _add_state(self, name, shape=(), value=0.0):
        """Create an engine accumulator (float64, so long runs do not lose counts)."""
        xp = state.backend().xp
        setattr(self, name, xp.full(shape, value, dtype="float64"))
        self._state_names = tuple(self._state_names) + (name,)

    @property
    def variables(self):
        """The engine arrays holding the metric's state."""
        return [getattr(self, name) for name in self._state_names]

    def __call__(self, *args, **kwargs):
        """Update the state with one batch and return the running result (Keras 3)."""
        self.update_state(*args, **kwargs)
        return self.result()

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}>"


def _result_value(array):
    """A 0-d engine array as a Python float; a 1-d one as a NumPy array."""
    values = state.backend().to_numpy(array)
    return float(values) if values.ndim == 0 else values.astype("float32")


def _samplewise(values, sample_weight):
    """Keras' reduction of ``values`` (and ``sample_weight``) to one value per sample."""
    if sample_weight is not None:
        weights = _float(sample_weight, values.dtype)
        values, weights = squeeze_or_expand_to_same_rank(values, weights)
        if values.ndim > weights.ndim:
            values = values.mean(axis=tuple(range(weights.ndim, values.ndim)))
        weights = state.backend().xp.broadcast_to(weights, values.shape)
        values = values * weights
        if weights.ndim > 1:
            weights = weights.mean(axis=tuple(range(1, weights.ndim)))
        sample_weight = weights
    if values.ndim > 1:
        values = values.mean(axis=tuple(range(1, values.ndim)))
    return values, sample_weight


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
        values, weights = _samplewise(_float(values), sample_weight)
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
def accuracy(y_true, y_pred):
    """1.0 where ``y_true == y_pred`` exactly, else 0.0."""
    y_pred = _float(y_pred)
    y_true, y_pred = squeeze_or_expand_to_same_rank(_float(y_true, y_pred.dtype), y_pred)
    return (y_true == y_pred).astype(state.floatx())


def binary_accuracy(y_true, y_pred, threshold=0.5):
    """1.0 where ``(y_pred > threshold) == y_true``."""
    y_pred = _float(y_pred)
    y_true, y_pred = squeeze_or_expand_to_same_rank(_float(y_true, y_pred.dtype), y_pred)
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
        y_pred = _float(y_pred)
        y_true, y_pred = squeeze_or_expand_to_same_rank(_float(y_true, y_pred.dtype), y_pred)
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
        y_pred = _float(y_pred)
        y_true, y_pred = squeeze_or_expand_to_same_rank(_float(y_true, y_pred.dtype), y_pred)
        super().update_state(state.backend().xp.square(y_pred - y_true), sample_weight)

    def result(self):
        return float(np.sqrt(super().result()))


# ------------------------------------------------------------- confusion counts
def _prepare_confusion(y_true, y_pred, sample_weight, top_k=None, class_id=None):
    """Flattened-compatible ``(labels bool, scores, weights or None)`` as Keras prepares
    them for confusion-matrix metrics."""
    xp = state.backend().xp
    y_pred = _float(y_pred)
    y_true = _array(y_true)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    if top_k is not None:
        y_pred = _filter_top_k(y_pred, top_k)
    if class_id is not None:
        y_true, y_pred = y_true[..., class_id, None], y_pred[..., class_id, None]
    weights = None
    if sample_weight is not None:
        weights = _float(sample_weight, y_pred.dtype)
        _, weights = squeeze_or_expand_to_same_rank(y_pred, weights)
        if weights.ndim < y_pred.ndim:
            weights = weights.reshape(weights.shape + (1,) * (y_pred.ndim - weights.ndim))
        weights = xp.broadcast_to(weights, y_pred.shape)
    return y_true.astype(bool), y_pred, weights


def _filter_top_k(x, k):
    """Scores outside each row's top ``k`` replaced by a very negative number (Keras)."""
    xp = state.backend().xp
    if k >= x.shape[-1]:
        return x
    top = xp.argpartition(-x, k - 1, axis=-1)[..., :k]
    mask = xp.zeros(x.shape, dtype=bool)
    xp.put_along_axis(mask, top, True, axis=-1)
    return xp.where(mask, x, x.dtype.type(NEG_INF))


def _counts_by_threshold(labels, scores, weights, thresholds):
    """(tp, fp, tn, fn), each of shape (thresholds,): predictions are positive when
    ``score > threshold``."""
    labels = labels.reshape(-1)
    scores = scores.reshape(-1)
    w = scores.dtype.type(1) if weights is None else weights.reshape(-1)
    true_w = (labels * w).astype("float64")
    false_w = ((~labels) * w).astype("float64")
    if true_w.ndim == 0:
        true_w = state.backend().xp.full(labels.shape, true_w)
        false_w = state.backend().xp.full(labels.shape, false_w)
    positive = (scores[None, :] > thresholds[:, None]).astype("float64")
    tp, fp = positive @ true_w, positive @ false_w
    return tp, fp, false_w.sum() - fp, true_w.sum() - tp


class _ConfusionMetric(Metric):
    """Shared state of threshold-based metrics: tp/fp/tn/fn per threshold."""

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None,
                 default_threshold=0.5):
        super().__init__(dtype=dtype, name=name)
        self.init_thresholds = thresholds
        self.top_k = top_k
        self.class_id = class_id
        if thresholds is None:
            thresholds = NEG_INF if top_k is not None else default_threshold
        self._single = np.ndim(thresholds) == 0
        values = np.atleast_1d(np.asarray(thresholds, dtype="float64"))
        if np.any(values > 1) or (np.any(values < 0) and top_k is None):
            raise ValueError(f"Threshold values must be in [0, 1]. Received: {thresholds}")
        self.thresholds = values.tolist()
        self._engine_thresholds = state.backend().asarray(values.astype(self.dtype))
        for counter in ("true_positives", "false_positives", "true_negatives",
                        "false_negatives"):
            self._add_state(counter, (len(values),))

    def update_state(self, y_true, y_pred, sample_weight=None):
        labels, scores, weights = _prepare_confusion(y_true, y_pred, sample_weight,
                                                     self.top_k, self.class_id)
        tp, fp, tn, fn = _counts_by_threshold(labels, scores, weights,
                                              self._engine_thresholds.astype(scores.dtype))
        self.true_positives += tp
        self.false_positives += fp
        self.true_negatives += tn
        self.false_negatives += fn

    def _ratio(self, numerator, denominator):
        xp = state.backend().xp
        ratio = xp.where(denominator > 0, numerator / xp.where(denominator > 0,
                                                                denominator, 1.0), 0.0)
        return _result_value(ratio[0] if self._single else ratio)

    def get_config(self):
        return {**super().get_config(), "thresholds": self.init_thresholds,
                "top_k": self.top_k, "class_id": self.class_id}


class Precision(_ConfusionMetric):
    """``tp / (tp + fp)`` at ``thresholds`` (default 0.5; a list gives one value each)."""

    def result(self):
        return self._ratio(self.true_positives, self.true_positives + self.false_positives)


class Recall(_ConfusionMetric):
    """``tp / (tp + fn)`` at ``thresholds`` (default 0.5; a list gives one value each)."""

    def result(self):
        return self._ratio(self.true_positives, self.true_positives + self.false_negatives)


def _count_class(counter):
    class _Count(_ConfusionMetric):
        def __init__(self, thresholds=None, name=None, dtype=None):
            super().__init__(thresholds=thresholds, name=name, dtype=dtype)

        def result(self):
            values = getattr(self, counter)
            return _result_value(values[0] if self._single else values)

        def get_config(self):
            return {"name": self.name, "dtype": self.dtype,
                    "thresholds": self.init_thresholds}

    return _Count


class TruePositives(_count_class("true_positives")):
    """Weighted count of true positives at ``thresholds`` (default 0.5)."""


class FalsePositives(_count_class("false_positives")):
    """Weighted count of false positives at ``thresholds`` (default 0.5)."""


class TrueNegatives(_count_class("true_negatives")):
    """Weighted count of true negatives at ``thresholds`` (default 0.5)."""


class FalseNegatives(_count_class("false_negatives")):
    """Weighted count of false negatives at ``thresholds`` (default 0.5)."""


# ----------------------------------------------------------------------------- AUC
class AUC(Metric):
    """Area under the ROC or precision-recall curve, from confusion counts at
    ``num_thresholds`` evenly spaced thresholds (Keras' Riemann sum, ``"interpolation"``
    by default: trapezoids for ROC, Davis & Goadrich interpolation for PR).

    Args:
        num_thresholds: thresholds used to discretize the curve (default 200).
        curve: ``"ROC"`` or ``"PR"``.
        summation_method: ``"interpolation"``, ``"minoring"`` or ``"majoring"``.
        thresholds: explicit thresholds in [0, 1] (overrides ``num_thresholds``).
        multi_label: treat each column as its own label and average the AUCs.
        num_labels: number of labels for ``multi_label`` (inferred from the first batch).
        label_weights: per-label weights (of the counts, or of the average for
            ``multi_label``).
        from_logits: apply a sigmoid to the predictions first.
    """

    def __init__(self, num_thresholds=200, curve="ROC", summation_method="interpolation",
                 name=None, dtype=None, thresholds=None, multi_label=False, num_labels=None,
                 label_weights=None, from_logits=False):
        super().__init__(dtype=dtype, name=name or "auc")
        curve = str(curve).upper()
        if curve not in ("ROC", "PR"):
            raise ValueError(f'Invalid AUC curve value: "{curve}". Expected values are '
                             '["PR", "ROC"]')
        summation_method = str(summation_method).lower()
        if summation_method not in ("interpolation", "minoring", "majoring"):
            raise ValueError(f'Invalid AUC summation method value: "{summation_method}". '
                             'Expected values are ["interpolation", "majoring", "minoring"]')
        self.curve = curve
        self.summation_method = summation_method
        self.multi_label = multi_label
        self.num_labels = num_labels
        self.label_weights = None if label_weights is None else list(label_weights)
        self._from_logits = from_logits
        self._init_from_thresholds = thresholds is not None
        if thresholds is not None:
            inner = sorted(float(t) for t in thresholds)
            self.num_thresholds = len(inner) + 2
            grid = np.array([0.0] + inner + [1.0])
            steps = np.diff(grid)
            self._evenly = bool(np.allclose(steps, steps[0], atol=EPSILON))
        else:
            if num_thresholds <= 1:
                raise ValueError("Argument `num_thresholds` must be an integer > 1. "
                                 f"Received: num_thresholds={num_thresholds}")
            self.num_thresholds = num_thresholds
            inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
            self._evenly = True
        self.thresholds = [0.0 - EPSILON] + inner + [1.0 + EPSILON]
        self._engine_thresholds = state.backend().asarray(
            np.asarray(self.thresholds, dtype="float64"))
        self._built = False
        if not multi_label or num_labels is not None:
            self._build(num_labels)

    def _build(self, num_labels):
        shape = (self.num_thresholds,) if not self.multi_label else \
            (self.num_thresholds, num_labels)
        self._state_names = ()
        for counter in ("true_positives", "false_positives", "true_negatives",
                        "false_negatives"):
            self._add_state(counter, shape)
        self.num_labels = num_labels if self.multi_label else None
        self._built = True

    def reset_state(self):
        if self._built:
            super().reset_state()

    def update_state(self, y_true, y_pred, sample_weight=None):
        xp = state.backend().xp
        labels, scores, weights = _prepare_confusion(y_true, y_pred, sample_weight)
        if self._from_logits:
            scores = 0.5 * (xp.tanh(0.5 * scores) + 1)
        if self.multi_label:
            if not self._built:
                self._build(scores.shape[-1])
            labels = labels.reshape(-1, scores.shape[-1])
            weights = None if weights is None else weights.reshape(labels.shape)
            scores = scores.reshape(labels.shape)
        elif self.label_weights is not None:
            lw = xp.asarray(np.asarray(self.label_weights), dtype=scores.dtype)
            weights = xp.broadcast_to(lw, scores.shape) if weights is None else weights * lw
        if self._evenly:
            counts = self._bucket_counts(labels, scores, weights)
        elif self.multi_label:
            columns = [_counts_by_threshold(labels[:, j], scores[:, j],
                                            None if weights is None else weights[:, j],
                                            self._engine_thresholds.astype(scores.dtype))
                       for j in range(scores.shape[-1])]
            counts = [xp.stack(parts, axis=-1) for parts in zip(*columns)]
        else:
            counts = _counts_by_threshold(labels, scores, weights,
                                          self._engine_thresholds.astype(scores.dtype))
        self.true_positives += counts[0]
        self.false_positives += counts[1]
        self.true_negatives += counts[2]
        self.false_negatives += counts[3]

    def _bucket_counts(self, labels, scores, weights):
        """Keras' optimized counts for evenly spaced thresholds: bucket each score by
        ``ceil(score * (T - 1)) - 1`` and cumulate from the top."""
        xp = state.backend().xp
        t = self.num_thresholds
        scores = xp.clip(scores, 0.0, 1.0)
        buckets = xp.maximum(xp.ceil(scores * (t - 1)) - 1, 0).astype("int64")
        w = xp.ones(scores.shape, dtype="float64") if weights is None else \
            weights.astype("float64")
        true_w = labels * w
        false_w = (~labels) * w
        if self.multi_label:
            width = scores.shape[-1]
            ids = (buckets * width + xp.arange(width)).reshape(-1)
            tp_b = xp.bincount(ids, true_w.reshape(-1), minlength=t * width).reshape(t, width)
            fp_b = xp.bincount(ids, false_w.reshape(-1), minlength=t * width).reshape(t, width)
            total_true, total_false = true_w.sum(axis=0), false_w.sum(axis=0)
        else:
            ids = buckets.reshape(-1)
            tp_b = xp.bincount(ids, true_w.reshape(-1), minlength=t)
            fp_b = xp.bincount(ids, false_w.reshape(-1), minlength=t)
            total_true, total_false = true_w.sum(), false_w.sum()
        tp = xp.cumsum(tp_b[::-1], axis=0)[::-1]
        fp = xp.cumsum(fp_b[::-1], axis=0)[::-1]
        return tp, fp, total_false - fp, total_true - tp

    def result(self):
        if not self._built:
            return 0.0
        xp = state.backend().xp
        tp, fp = self.true_positives, self.false_positives
        tn, fn = self.true_negatives, self.false_negatives
        n = self.num_thresholds
        if self.curve == "PR" and self.summation_method == "interpolation":
            dtp = tp[:n - 1] - tp[1:]
            p = tp + fp
            dp = p[:n - 1] - p[1:]
            slope = _divide_no_nan(dtp, xp.maximum(dp, 0))
            intercept = tp[1:] - slope * p[1:]
            both = (p[:n - 1] > 0) & (p[1:] > 0)
            ratio = xp.where(both, _divide_no_nan(p[:n - 1], xp.maximum(p[1:], 0)), 1.0)
            terms = _divide_no_nan(slope * (dtp + intercept * xp.log(ratio)),
                                   xp.maximum(tp[1:] + fn[1:], 0))
        else:
            recall = _divide_no_nan(tp, tp + fn)
            if self.curve == "ROC":
                x, y = _divide_no_nan(fp, fp + tn), recall
            else:
                x, y = recall, _divide_no_nan(tp, tp + fp)
            if self.summation_method == "interpolation":
                heights = (y[:n - 1] + y[1:]) / 2.0
            elif self.summation_method == "minoring":
                heights = xp.minimum(y[:n - 1], y[1:])
            else:
                heights = xp.maximum(y[:n - 1], y[1:])
            terms = (x[:n - 1] - x[1:]) * heights
        if not self.multi_label:
            return _result_value(terms.sum())
        by_label = terms.sum(axis=0)
        if self.label_weights is None:
            return _result_value(by_label.mean())
        lw = xp.asarray(np.asarray(self.label_weights, dtype="float64"))
        return _result_value(_divide_no_nan((by_label * lw).sum(), lw.sum()))

    def get_config(self):
        config = {**super().get_config(), "num_thresholds": self.num_thresholds,
                  "curve": self.curve, "summation_method": self.summation_method,
                  "multi_label": self.multi_label, "num_labels": self.num_labels,
                  "label_weights": self.label_weights, "from_logits": self._from_logits}
        if self._init_from_thresholds:
            config["thresholds"] = self.thresholds[1:-1]
        return config


def _divide_no_nan(a, b):
    xp = state.backend().xp
    safe = xp.where(b == 0, 1.0, b)
    return xp.where(b == 0, 0.0, a / safe)


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
    METRICS.add(_snake_case(_cls.__name__), _cls)
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

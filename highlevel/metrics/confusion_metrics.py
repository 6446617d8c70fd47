"""Confusion-matrix metrics: :class:`Precision`, :class:`Recall`, the weighted counts
(:class:`TruePositives`, :class:`FalsePositives`, :class:`TrueNegatives`,
:class:`FalseNegatives`) and :class:`AUC`, all from true/false positive/negative counts
accumulated per threshold.
"""

import numpy as np

from ...backends import state
from ..losses.loss_utils import epsilon, squeeze_or_expand_to_same_rank
from .metric import Metric, engine_array, float_array, result_value

NEG_INF = -1e10


# ------------------------------------------------------------- confusion counts
def _prepare_confusion(y_true, y_pred, sample_weight, top_k=None, class_id=None):
    """Flattened-compatible ``(labels bool, scores, weights or None)`` as Keras prepares
    them for confusion-matrix metrics."""
    xp = state.backend().xp
    y_pred = float_array(y_pred)
    y_true = engine_array(y_true)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    if top_k is not None:
        y_pred = _filter_top_k(y_pred, top_k)
    if class_id is not None:
        y_true, y_pred = y_true[..., class_id, None], y_pred[..., class_id, None]
    weights = None
    if sample_weight is not None:
        weights = float_array(sample_weight, y_pred.dtype)
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


class ConfusionMetric(Metric):
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
        return result_value(ratio[0] if self._single else ratio)

    def get_config(self):
        return {**super().get_config(), "thresholds": self.init_thresholds,
                "top_k": self.top_k, "class_id": self.class_id}


class Precision(ConfusionMetric):
    """``tp / (tp + fp)`` at ``thresholds`` (default 0.5; a list gives one value each)."""

    def result(self):
        return self._ratio(self.true_positives, self.true_positives + self.false_positives)


class Recall(ConfusionMetric):
    """``tp / (tp + fn)`` at ``thresholds`` (default 0.5; a list gives one value each)."""

    def result(self):
        return self._ratio(self.true_positives, self.true_positives + self.false_negatives)


def _count_class(counter):
    class _Count(ConfusionMetric):
        def __init__(self, thresholds=None, name=None, dtype=None):
            super().__init__(thresholds=thresholds, name=name, dtype=dtype)

        def result(self):
            values = getattr(self, counter)
            return result_value(values[0] if self._single else values)

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
            self._evenly = bool(np.allclose(steps, steps[0], atol=epsilon()))
        else:
            if num_thresholds <= 1:
                raise ValueError("Argument `num_thresholds` must be an integer > 1. "
                                 f"Received: num_thresholds={num_thresholds}")
            self.num_thresholds = num_thresholds
            inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
            self._evenly = True
        self.thresholds = [0.0 - epsilon()] + inner + [1.0 + epsilon()]
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
            return result_value(terms.sum())
        by_label = terms.sum(axis=0)
        if self.label_weights is None:
            return result_value(by_label.mean())
        lw = xp.asarray(np.asarray(self.label_weights, dtype="float64"))
        return result_value(_divide_no_nan((by_label * lw).sum(), lw.sum()))

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


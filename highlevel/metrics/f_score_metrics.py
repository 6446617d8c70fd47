"""F-scores: ``FBetaScore`` and ``F1Score`` for multi-label / multi-class predictions
(``keras.metrics`` names, arguments and results). The state is created with
:meth:`Metric.add_variable`, the Keras 3 way, once the number of classes is known."""

from ...backends import state
from ..losses.loss_utils import epsilon
from .metric import Metric, float_array, result_value


class FBetaScore(Metric):
    """``(1 + beta**2) * precision * recall / (beta**2 * precision + recall)`` per class
    of 2-D ``(samples, classes)`` inputs; ``average`` None (per class), ``"micro"``,
    ``"macro"`` or ``"weighted"``; predictions above ``threshold`` are positive (default:
    each row's maximum)."""

    def __init__(self, average=None, beta=1.0, threshold=None, name="fbeta_score",
                 dtype=None):
        super().__init__(name=name, dtype=dtype)
        if average not in (None, "micro", "macro", "weighted"):
            raise ValueError("Invalid `average` argument value. Expected one of: {None, "
                             f"'micro', 'macro', 'weighted'}}. Received: average={average}")
        if not isinstance(beta, float) or beta <= 0.0:
            raise ValueError(f"Invalid `beta` argument value. It should be a Python float "
                             f"> 0. Received: beta={beta!r}")
        if threshold is not None and (not isinstance(threshold, float)
                                      or not 0.0 < threshold <= 1.0):
            raise ValueError(f"Invalid `threshold` argument value. It should be a Python "
                             f"float with 0 < threshold <= 1. Received: "
                             f"threshold={threshold!r}")
        self.average, self.beta, self.threshold = average, beta, threshold
        self.axis = None if average == "micro" else 0
        self._built = False

    def _build(self, y_true_shape, y_pred_shape):
        if len(y_pred_shape) != 2 or len(y_true_shape) != 2:
            raise ValueError(f"{type(self).__name__} expects 2D inputs with shape "
                             f"(batch_size, output_dim). Received input shapes: "
                             f"y_pred.shape={tuple(y_pred_shape)} and "
                             f"y_true.shape={tuple(y_true_shape)}.")
        shape = () if self.average == "micro" else (y_pred_shape[-1],)
        for counter in ("true_positives", "false_positives", "false_negatives",
                        "intermediate_weights"):
            setattr(self, counter, self.add_variable(shape, "zeros", name=counter))
        self._built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Accumulate the weighted counts of one batch."""
        xp = state.backend().xp
        y_true, y_pred = float_array(y_true, self.dtype), float_array(y_pred, self.dtype)
        if not self._built:
            self._build(y_true.shape, y_pred.shape)
        if self.threshold is None:
            positive = (y_pred >= y_pred.max(axis=-1, keepdims=True)) & (xp.abs(y_pred) > 1e-9)
        else:
            positive = y_pred > self.threshold
        positive = positive.astype(self.dtype)
        weights = None if sample_weight is None else float_array(sample_weight, self.dtype)[:, None]

        def weighted_sum(values):
            return (values if weights is None else values * weights).sum(axis=self.axis)

        self.true_positives.assign_add(weighted_sum(positive * y_true))
        self.false_positives.assign_add(weighted_sum(positive * (1 - y_true)))
        self.false_negatives.assign_add(weighted_sum((1 - positive) * y_true))
        self.intermediate_weights.assign_add(weighted_sum(y_true))

    def result(self):
        """The F-beta score(s)."""
        if not self._built:
            return 0.0
        tp, fp, fn = (v.data for v in (self.true_positives, self.false_positives,
                                       self.false_negatives))
        precision = tp / (tp + fp + epsilon())
        recall = tp / (tp + fn + epsilon())
        beta2 = self.beta ** 2
        score = precision * recall / (beta2 * precision + recall + epsilon()) * (1 + beta2)
        if self.average == "weighted":
            weights = self.intermediate_weights.data
            score = (score * weights / (weights.sum() + epsilon())).sum()
        elif self.average is not None:
            score = score.mean()
        return result_value(score)

    def get_config(self):
        """Keras' config."""
        return {**super().get_config(), "beta": self.beta, "average": self.average,
                "threshold": self.threshold}


class F1Score(FBetaScore):
    """The F-beta score with ``beta = 1``: the harmonic mean of precision and recall."""

    def __init__(self, average=None, threshold=None, name="f1_score", dtype=None):
        super().__init__(average=average, beta=1.0, threshold=threshold, name=name,
                         dtype=dtype)

    def get_config(self):
        """Keras' config (no ``beta``)."""
        config = super().get_config()
        del config["beta"]
        return config

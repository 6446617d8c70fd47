"""Metrics that maximise one rate subject to a floor on another, over ``num_thresholds``
evenly spaced thresholds: ``SensitivityAtSpecificity``, ``SpecificityAtSensitivity``,
``PrecisionAtRecall`` and ``RecallAtPrecision`` (``keras.metrics`` names, arguments and
results)."""

from ...backends import state
from .confusion_metrics import ConfusionMetric
from .metric import Metric, result_value


def _ratio(numerator, denominator):
    """``numerator / denominator`` with 0 where the denominator is 0."""
    xp = state.backend().xp
    return xp.where(denominator > 0, numerator / xp.where(denominator > 0, denominator, 1), 0.0)


class _ConstrainedRateMetric(ConfusionMetric):
    """tp/fp/tn/fn at ``num_thresholds`` thresholds in [0, 1] (0.5 alone when 1); a
    subclass names the ``constrained`` rate, whose floor is ``value``, and the
    ``dependent`` rate whose maximum is the result."""

    _value_name = "value"

    def __init__(self, value, num_thresholds=200, class_id=None, name=None, dtype=None):
        if num_thresholds <= 0:
            raise ValueError(f"Argument `num_thresholds` must be an integer > 0. "
                             f"Received: num_thresholds={num_thresholds}")
        if not 0 <= value <= 1:
            raise ValueError(f"Argument `{self._value_name}` must be in the range [0, 1]. "
                             f"Received: {self._value_name}={value}")
        thresholds = [0.5] if num_thresholds == 1 else (
            [0.0] + [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
            + [1.0])
        super().__init__(thresholds=thresholds, class_id=class_id, name=name, dtype=dtype)
        self.value, self.num_thresholds = value, num_thresholds

    def _rates(self):
        """(sensitivity = recall, specificity, precision) at every threshold."""
        tp, fp, tn, fn = (self.true_positives, self.false_positives, self.true_negatives,
                          self.false_negatives)
        return _ratio(tp, tp + fn), _ratio(tn, tn + fp), _ratio(tp, tp + fp)

    def _constrained_and_dependent(self):
        raise NotImplementedError

    def result(self):
        """The largest dependent rate among thresholds meeting the constraint (0 if none)."""
        constrained, dependent = self._constrained_and_dependent()
        best = state.backend().xp.where(constrained >= self.value, dependent, 0.0).max()
        return result_value(best.astype(self.dtype))

    def get_config(self):
        """Keras' config."""
        return {**Metric.get_config(self), self._value_name: self.value,
                "num_thresholds": self.num_thresholds, "class_id": self.class_id}


class SensitivityAtSpecificity(_ConstrainedRateMetric):
    """The best sensitivity (recall) where the specificity is at least ``specificity``."""

    _value_name = "specificity"

    def __init__(self, specificity, num_thresholds=200, class_id=None, name=None,
                 dtype=None):
        super().__init__(specificity, num_thresholds, class_id, name, dtype)

    def _constrained_and_dependent(self):
        sensitivity, specificity, _ = self._rates()
        return specificity, sensitivity


class SpecificityAtSensitivity(_ConstrainedRateMetric):
    """The best specificity where the sensitivity (recall) is at least ``sensitivity``."""

    _value_name = "sensitivity"

    def __init__(self, sensitivity, num_thresholds=200, class_id=None, name=None,
                 dtype=None):
        super().__init__(sensitivity, num_thresholds, class_id, name, dtype)

    def _constrained_and_dependent(self):
        sensitivity, specificity, _ = self._rates()
        return sensitivity, specificity


class PrecisionAtRecall(_ConstrainedRateMetric):
    """The best precision where the recall is at least ``recall``."""

    _value_name = "recall"

    def __init__(self, recall, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(recall, num_thresholds, class_id, name, dtype)

    def _constrained_and_dependent(self):
        recall, _, precision = self._rates()
        return recall, precision


class RecallAtPrecision(_ConstrainedRateMetric):
    """The best recall where the precision is at least ``precision``."""

    _value_name = "precision"

    def __init__(self, precision, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(precision, num_thresholds, class_id, name, dtype)

    def _constrained_and_dependent(self):
        recall, _, precision = self._rates()
        return precision, recall

"""Reduction metrics (``Sum``, ``Mean``) and :class:`MeanMetricWrapper`, the mean of a
per-sample function, with :func:`wrapped`, which makes Keras' wrapped-metric classes."""

import sys

from ...backends.autodiff import Tensor, no_grad
from ...backends.registry import Registry
from ..losses.loss_utils import keras_mask_array, squeeze_or_expand_to_same_rank
from ..losses.reduction import align_weights
from .metric import Metric, engine_array, float_array, result_value, samplewise

METRIC_FUNCTIONS = Registry("metric function")


class Sum(Metric):
    """Running (weighted) sum of the values."""

    def __init__(self, name="sum", dtype=None):
        super().__init__(dtype=dtype, name=name)
        self._add_state("total")

    def update_state(self, values, sample_weight=None):
        values, _ = samplewise(float_array(values), sample_weight)
        self.total += values.sum()

    def result(self):
        return result_value(self.total)


class Mean(Metric):
    """Running (weighted) mean of the values: ``sum(values * w) / sum(w)``."""

    def __init__(self, name="mean", dtype=None):
        super().__init__(dtype=dtype, name=name)
        self._add_state("total")
        self._add_state("count")

    def update_state(self, values, sample_weight=None):
        values = float_array(values)
        if values.ndim == 0 and type(sample_weight) in (int, float):
            self.total += values * sample_weight     # a batch loss weighted by batch size
            self.count += sample_weight
            return
        values, weights = samplewise(values, sample_weight)
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
        mask = keras_mask_array(y_pred)
        y_true, y_pred = squeeze_or_expand_to_same_rank(engine_array(y_true), float_array(y_pred))
        with no_grad():
            values = self._fn(y_true, y_pred, **self._fn_kwargs)
        if mask is not None:
            # Keras 3: the mask on ``y_pred`` weights the values (a padded timestep
            # counts for nothing), on top of any sample_weight.
            if sample_weight is None:
                sample_weight = mask
            else:
                mask, weights = align_weights(float_array(sample_weight, mask.dtype), mask)
                sample_weight = weights * mask
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
                fn = METRIC_FUNCTIONS.lookup(fn)
            return cls(fn, **config)
        config.pop("fn", None)
        return cls(**config)


def wrapped(class_name, fn, default_name, doc, **defaults):
    """A MeanMetricWrapper subclass with Keras' constructor ``(name, dtype, **defaults)``,
    whose ``__module__`` is the caller's (as ``namedtuple`` does), so it pickles by
    reference."""
    keys = list(defaults)
    module = sys._getframe(1).f_globals["__name__"]

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
                {"__init__": __init__, "__doc__": doc, "__module__": module})

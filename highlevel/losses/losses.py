"""Loss functions and classes (``keras.losses``): Keras 3 names, arguments and defaults.

A loss *function* (``mean_squared_error(y_true, y_pred)``) returns the per-sample losses;
a :class:`Loss` object weights them by ``sample_weight`` and reduces them to a scalar
differentiable with respect to ``y_pred``. The cross-entropy functions live in
:mod:`.cross_entropy_losses`, the weighting and reduction in :mod:`.loss_reduction` and the
argument helpers in :mod:`.loss_utils`; all are re-exported here.

Example:
    >>> from lamina.highlevel import losses
    >>> loss = losses.SparseCategoricalCrossentropy(from_logits=True)
    >>> value = loss(labels, logits)          # scalar Tensor
    >>> losses.get("mse")                      # MeanSquaredError()
"""

import math

from ...backends import ops
from ...backends import state
from ...backends.registry import Registry
from ...layers.base import snake_case
from .cross_entropy import (_sparse_losses_and_mask, binary_crossentropy,
                            categorical_crossentropy, sparse_categorical_crossentropy)
from .reduction import REDUCTIONS, _standardize_reduction, reduce_weighted_values
from .loss_utils import (EPSILON, _as_pred, _as_true, _data, _prepare,
                         squeeze_or_expand_to_same_rank)

LOSSES = Registry("loss")
_LOG2 = math.log(2.0)


# ---------------------------------------------------------------------- loss functions
def mean_squared_error(y_true, y_pred):
    """``mean(square(y_true - y_pred), axis=-1)``."""
    y_true, y_pred = _prepare(y_true, y_pred)
    return ops.mean_squared_error(y_true, y_pred)


def mean_absolute_error(y_true, y_pred):
    """``mean(abs(y_true - y_pred), axis=-1)``."""
    y_true, y_pred = _prepare(y_true, y_pred)
    return ops.mean(ops.abs(ops.subtract(y_true, y_pred)), axis=-1)


def mean_absolute_percentage_error(y_true, y_pred):
    """``100 * mean(abs((y_true - y_pred) / maximum(abs(y_true), eps)), axis=-1)``."""
    y_true, y_pred = _prepare(y_true, y_pred)
    diff = ops.abs(ops.divide(ops.subtract(y_true, y_pred),
                              ops.maximum(ops.abs(y_true), EPSILON)))
    return ops.multiply(ops.mean(diff, axis=-1), 100.0)


def mean_squared_logarithmic_error(y_true, y_pred):
    """``mean(square(log(max(y_pred, eps) + 1) - log(max(y_true, eps) + 1)), axis=-1)``."""
    y_true, y_pred = _prepare(y_true, y_pred)
    first = ops.log(ops.add(ops.maximum(y_pred, EPSILON), 1.0))
    second = ops.log(ops.add(ops.maximum(y_true, EPSILON), 1.0))
    return ops.mean(ops.square(ops.subtract(first, second)), axis=-1)


def huber(y_true, y_pred, delta=1.0):
    """Quadratic for ``|error| <= delta``, linear beyond; mean over the last axis."""
    y_true, y_pred = _prepare(y_true, y_pred)
    error = ops.subtract(y_pred, y_true)
    abs_error = ops.abs(error)
    quadratic = ops.multiply(ops.square(error), 0.5)
    linear = ops.subtract(ops.multiply(abs_error, float(delta)), 0.5 * float(delta) ** 2)
    return ops.mean(ops.where(_data(abs_error) <= delta, quadratic, linear), axis=-1)


def log_cosh(y_true, y_pred):
    """``mean(log(cosh(y_pred - y_true)), axis=-1)``, computed as
    ``x + softplus(-2x) - log(2)`` (no overflow)."""
    y_true, y_pred = _prepare(y_true, y_pred)
    x = ops.subtract(y_pred, y_true)
    return ops.mean(ops.subtract(ops.add(x, ops.softplus(ops.multiply(x, -2.0))), _LOG2),
                    axis=-1)


def _hinge_labels(y_true):
    """Binary 0/1 labels become -1/1 (other labels are used as given)."""
    xp = state.backend().xp
    values = _data(y_true)
    if bool(xp.all((values == 0) | (values == 1))):
        return ops.subtract(ops.multiply(y_true, 2.0), 1.0)
    return y_true


def hinge(y_true, y_pred):
    """``mean(maximum(1 - y_true * y_pred, 0), axis=-1)``; 0/1 labels map to -1/1."""
    y_true, y_pred = _prepare(y_true, y_pred)
    y_true = _hinge_labels(y_true)
    return ops.mean(ops.relu(ops.subtract(1.0, ops.multiply(y_true, y_pred))), axis=-1)


def squared_hinge(y_true, y_pred):
    """``mean(square(maximum(1 - y_true * y_pred, 0)), axis=-1)``; 0/1 labels map to -1/1."""
    y_true, y_pred = _prepare(y_true, y_pred)
    y_true = _hinge_labels(y_true)
    margin = ops.relu(ops.subtract(1.0, ops.multiply(y_true, y_pred)))
    return ops.mean(ops.square(margin), axis=-1)


def kl_divergence(y_true, y_pred):
    """``sum(t * log(t / p), axis=-1)`` with both clipped to ``[eps, 1]``."""
    y_true, y_pred = _prepare(y_true, y_pred)
    t = ops.clip(y_true, EPSILON, 1.0)
    p = ops.clip(y_pred, EPSILON, 1.0)
    return ops.sum(ops.multiply(t, ops.log(ops.divide(t, p))), axis=-1)


def poisson(y_true, y_pred):
    """``mean(y_pred - y_true * log(y_pred + eps), axis=-1)``."""
    y_true, y_pred = _prepare(y_true, y_pred)
    return ops.mean(ops.subtract(y_pred, ops.multiply(y_true, ops.log(ops.add(y_pred, EPSILON)))),
                    axis=-1)


# ------------------------------------------------------------------------- classes
class Loss:
    """Base class of losses: subclasses implement ``call(y_true, y_pred)`` returning the
    per-sample losses; ``__call__`` applies ``sample_weight`` and the ``reduction``.

    Args:
        reduction: ``"sum_over_batch_size"`` (default), ``"sum"``, ``"mean"``,
            ``"mean_with_sample_weight"`` or ``"none"``/``None``.
        name: the loss name (default: the class name in snake case).
        dtype: compute dtype for ``y_pred`` (default: keep its float dtype).
    """

    def __init__(self, reduction="sum_over_batch_size", name=None, dtype=None):
        self.reduction = _standardize_reduction(reduction)
        self.name = name or snake_case(type(self).__name__)
        self.dtype = dtype

    def __call__(self, y_true, y_pred, sample_weight=None):
        y_pred = _as_pred(y_pred, self.dtype)
        losses, mask = self._losses_and_mask(_as_true(y_true), y_pred)
        return reduce_weighted_values(losses, sample_weight, mask, self.reduction)

    def _losses_and_mask(self, y_true, y_pred):
        return self.call(y_true, y_pred), None

    def call(self, y_true, y_pred):
        raise NotImplementedError(f"Loss '{type(self).__name__}' must implement call()")

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config.pop("fn", None)          # Keras 2 LossFunctionWrapper configs
        return cls(**config)

    def __repr__(self):
        return f"{type(self).__name__}(name={self.name!r}, reduction={self.reduction!r})"

class LossFunctionWrapper(Loss):
    """A :class:`Loss` around ``fn(y_true, y_pred, **kwargs) -> per-sample losses``."""

    def __init__(self, fn, reduction="sum_over_batch_size", name=None, dtype=None, **kwargs):
        super().__init__(reduction=reduction, name=name or getattr(fn, "__name__", None),
                         dtype=dtype)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true, y_pred):
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self):
        config = super().get_config()
        config.update(self._fn_kwargs)
        if type(self) is LossFunctionWrapper:
            config["fn"] = getattr(self.fn, "__name__", repr(self.fn))
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        if cls is LossFunctionWrapper:
            fn = config.pop("fn")
            if isinstance(fn, str):
                fn = (custom_objects or {}).get(fn) or _FUNCTIONS.get(fn)
                if fn is None:
                    raise ValueError(f"unknown loss function {config.get('fn')!r}; known "
                                     f"loss functions: {', '.join(sorted(_FUNCTIONS))}")
            return cls(fn, **config)
        config.pop("fn", None)
        return cls(**config)


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


class Hinge(LossFunctionWrapper):
    """Hinge loss for -1/1 labels (0/1 labels are converted)."""

    def __init__(self, reduction="sum_over_batch_size", name="hinge", dtype=None):
        super().__init__(hinge, reduction=reduction, name=name, dtype=dtype)


class SquaredHinge(LossFunctionWrapper):
    """Squared hinge loss for -1/1 labels (0/1 labels are converted)."""

    def __init__(self, reduction="sum_over_batch_size", name="squared_hinge", dtype=None):
        super().__init__(squared_hinge, reduction=reduction, name=name, dtype=dtype)


class KLDivergence(LossFunctionWrapper):
    """Kullback-Leibler divergence ``sum(y_true * log(y_true / y_pred))``."""

    def __init__(self, reduction="sum_over_batch_size", name="kl_divergence", dtype=None):
        super().__init__(kl_divergence, reduction=reduction, name=name, dtype=dtype)


class Poisson(LossFunctionWrapper):
    """Poisson loss ``mean(y_pred - y_true * log(y_pred + eps))``."""

    def __init__(self, reduction="sum_over_batch_size", name="poisson", dtype=None):
        super().__init__(poisson, reduction=reduction, name=name, dtype=dtype)


class BinaryCrossentropy(LossFunctionWrapper):
    """Binary cross-entropy, averaged over ``axis``; ``from_logits=True`` takes raw scores
    (stable for any magnitude), ``label_smoothing`` pulls targets towards 0.5."""

    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1,
                 reduction="sum_over_batch_size", name="binary_crossentropy", dtype=None):
        super().__init__(binary_crossentropy, reduction=reduction, name=name, dtype=dtype,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self.axis = axis


class CategoricalCrossentropy(LossFunctionWrapper):
    """Cross-entropy of one-hot (or probability) targets along ``axis``; ``from_logits=True``
    uses the fused stable softmax cross-entropy."""

    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1,
                 reduction="sum_over_batch_size", name="categorical_crossentropy",
                 dtype=None):
        super().__init__(categorical_crossentropy, reduction=reduction, name=name,
                         dtype=dtype, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits
        self.label_smoothing = label_smoothing
        self.axis = axis


class SparseCategoricalCrossentropy(LossFunctionWrapper):
    """Cross-entropy of integer labels (``from_logits=False, ignore_class=None``).

    With ``ignore_class``, samples with that label get zero weight and the
    ``"sum_over_batch_size"`` reduction divides by the number of valid samples (Keras).
    """

    def __init__(self, from_logits=False, ignore_class=None, reduction="sum_over_batch_size",
                 name="sparse_categorical_crossentropy", dtype=None):
        super().__init__(sparse_categorical_crossentropy, reduction=reduction, name=name,
                         dtype=dtype, from_logits=from_logits, ignore_class=ignore_class)
        self.from_logits = from_logits
        self.ignore_class = ignore_class

    def call(self, y_true, y_pred):
        return _sparse_losses_and_mask(y_true, y_pred, self.from_logits, self.ignore_class)[0]

    def _losses_and_mask(self, y_true, y_pred):
        return _sparse_losses_and_mask(y_true, y_pred, self.from_logits, self.ignore_class)


# ---------------------------------------------------------------------------- registry
_FUNCTIONS = {
    "mean_squared_error": mean_squared_error, "mse": mean_squared_error,
    "MSE": mean_squared_error,
    "mean_absolute_error": mean_absolute_error, "mae": mean_absolute_error,
    "MAE": mean_absolute_error,
    "mean_absolute_percentage_error": mean_absolute_percentage_error,
    "mape": mean_absolute_percentage_error, "MAPE": mean_absolute_percentage_error,
    "mean_squared_logarithmic_error": mean_squared_logarithmic_error,
    "msle": mean_squared_logarithmic_error, "MSLE": mean_squared_logarithmic_error,
    "huber": huber, "huber_loss": huber, "log_cosh": log_cosh, "logcosh": log_cosh,
    "hinge": hinge, "squared_hinge": squared_hinge,
    "kl_divergence": kl_divergence, "kld": kl_divergence, "KLD": kl_divergence,
    "kullback_leibler_divergence": kl_divergence, "poisson": poisson,
    "binary_crossentropy": binary_crossentropy, "bce": binary_crossentropy,
    "BCE": binary_crossentropy,
    "categorical_crossentropy": categorical_crossentropy,
    "sparse_categorical_crossentropy": sparse_categorical_crossentropy,
}
_CLASS_OF_FUNCTION = {
    mean_squared_error: MeanSquaredError, mean_absolute_error: MeanAbsoluteError,
    mean_absolute_percentage_error: MeanAbsolutePercentageError,
    mean_squared_logarithmic_error: MeanSquaredLogarithmicError, huber: Huber,
    log_cosh: LogCosh, hinge: Hinge, squared_hinge: SquaredHinge,
    kl_divergence: KLDivergence, poisson: Poisson, binary_crossentropy: BinaryCrossentropy,
    categorical_crossentropy: CategoricalCrossentropy,
    sparse_categorical_crossentropy: SparseCategoricalCrossentropy,
}
for _cls in (LossFunctionWrapper, *_CLASS_OF_FUNCTION.values()):
    LOSSES.add(_cls.__name__, _cls)
for _alias, _fn in _FUNCTIONS.items():
    LOSSES.add(_alias, _CLASS_OF_FUNCTION[_fn])


def serialize(loss):
    """A Loss as Keras 3 serializes it (``{"module", "class_name", "config",
    "registered_name"}``)."""
    return {"module": "keras.losses", "class_name": type(loss).__name__,
            "config": loss.get_config(), "registered_name": None}


def deserialize(config, custom_objects=None):
    """Rebuild a loss from a ``{"class_name", "config"}`` dict (Keras 2 or 3) or a name."""
    if isinstance(config, str):
        return get(config, custom_objects)
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"cannot deserialize a loss from {config!r}: expected a name or a "
                         "dict with 'class_name' and 'config'")
    if config["class_name"] == "function":     # Keras 3 serialized loss function
        return get(config["config"], custom_objects)
    cls = LOSSES.lookup(config["class_name"], custom_objects)
    inner = dict(config.get("config") or {})
    if cls is LossFunctionWrapper:
        return cls.from_config(inner, custom_objects)
    if isinstance(cls, type) and hasattr(cls, "from_config"):
        return cls.from_config(inner)
    return LossFunctionWrapper(cls, **inner)


def get(identifier, custom_objects=None):
    """Resolve a loss: ``None``, a :class:`Loss`, a name (``"mse"``,
    ``"sparse_categorical_crossentropy"``, ``"MeanSquaredError"``), a config dict, a Loss
    class or a plain callable ``fn(y_true, y_pred) -> per-sample losses``.

    Raises ``ValueError`` listing the known names for an unknown one.
    """
    if identifier is None or isinstance(identifier, Loss):
        return identifier
    if isinstance(identifier, str):
        if custom_objects and identifier in custom_objects:
            return get(custom_objects[identifier])
        return LOSSES.lookup(identifier)()
    if isinstance(identifier, dict):
        return deserialize(identifier, custom_objects)
    if isinstance(identifier, type) and issubclass(identifier, Loss):
        return identifier()
    if identifier in _CLASS_OF_FUNCTION:
        return _CLASS_OF_FUNCTION[identifier]()
    if callable(identifier):
        return LossFunctionWrapper(identifier)
    raise ValueError(f"Could not interpret loss identifier: {identifier!r}")


__all__ = [
    "BinaryCrossentropy", "CategoricalCrossentropy", "Hinge", "Huber", "KLDivergence",
    "LOSSES", "LogCosh", "Loss", "LossFunctionWrapper", "MeanAbsoluteError",
    "MeanAbsolutePercentageError", "MeanSquaredError", "MeanSquaredLogarithmicError",
    "Poisson", "SparseCategoricalCrossentropy", "SquaredHinge", "binary_crossentropy",
    "categorical_crossentropy", "deserialize", "get", "hinge", "huber", "kl_divergence",
    "log_cosh", "mean_absolute_error", "mean_absolute_percentage_error",
    "mean_squared_error", "mean_squared_logarithmic_error", "poisson",
    "reduce_weighted_values", "serialize", "sparse_categorical_crossentropy",
    "squared_hinge",
]

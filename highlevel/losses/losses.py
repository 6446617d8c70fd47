"""``keras.losses``: every loss by class and by function, the registries of names and
:func:`get` / :func:`serialize` / :func:`deserialize`, Keras 3 names, arguments and defaults.

A loss *function* (``mean_squared_error(y_true, y_pred)``) returns the per-sample losses;
a :class:`Loss` object weights them by ``sample_weight`` and reduces them to a scalar
differentiable with respect to ``y_pred``. The families live in their own modules
(:mod:`.regression`, :mod:`.hinge`, :mod:`.probabilistic` with :mod:`.cross_entropy`,
:mod:`.segmentation`, :mod:`.metric_learning`), the base classes in :mod:`.loss`, the
weighting and reduction in :mod:`.reduction`; all are re-exported here.

Example:
    >>> from lamina.highlevel import losses
    >>> loss = losses.SparseCategoricalCrossentropy(from_logits=True)
    >>> value = loss(labels, logits)          # scalar Tensor
    >>> losses.get("mse")                      # MeanSquaredError()
"""

from .ctc import CTC, ctc
from .hinge import CategoricalHinge, Hinge, SquaredHinge, categorical_hinge, hinge, squared_hinge
from .loss import LOSS_FUNCTIONS, LOSSES, Loss, LossFunctionWrapper
from .metric_learning import Circle, circle
from .probabilistic import (BinaryCrossentropy, BinaryFocalCrossentropy,
                            CategoricalCrossentropy, CategoricalFocalCrossentropy,
                            CategoricalGeneralizedCrossEntropy, KLDivergence, Poisson,
                            SparseCategoricalCrossentropy, binary_crossentropy,
                            binary_focal_crossentropy, categorical_crossentropy,
                            categorical_focal_crossentropy,
                            categorical_generalized_cross_entropy, kl_divergence, poisson,
                            sparse_categorical_crossentropy)
from .reduction import reduce_weighted_values
from .regression import (CosineSimilarity, Huber, LogCosh, MeanAbsoluteError,
                         MeanAbsolutePercentageError, MeanSquaredError,
                         MeanSquaredLogarithmicError, cosine_similarity, huber, log_cosh,
                         mean_absolute_error, mean_absolute_percentage_error,
                         mean_squared_error, mean_squared_logarithmic_error)
from .segmentation import Dice, Tversky, dice, tversky


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
    "binary_focal_crossentropy": binary_focal_crossentropy,
    "categorical_focal_crossentropy": categorical_focal_crossentropy,
    "categorical_generalized_cross_entropy": categorical_generalized_cross_entropy,
    "categorical_hinge": categorical_hinge, "cosine_similarity": cosine_similarity,
    "dice": dice, "tversky": tversky, "circle": circle,
    "ctc": ctc,
}
_CLASS_OF_FUNCTION = {
    mean_squared_error: MeanSquaredError, mean_absolute_error: MeanAbsoluteError,
    mean_absolute_percentage_error: MeanAbsolutePercentageError,
    mean_squared_logarithmic_error: MeanSquaredLogarithmicError, huber: Huber,
    log_cosh: LogCosh, hinge: Hinge, squared_hinge: SquaredHinge,
    kl_divergence: KLDivergence, poisson: Poisson, binary_crossentropy: BinaryCrossentropy,
    categorical_crossentropy: CategoricalCrossentropy,
    sparse_categorical_crossentropy: SparseCategoricalCrossentropy,
    binary_focal_crossentropy: BinaryFocalCrossentropy,
    categorical_focal_crossentropy: CategoricalFocalCrossentropy,
    categorical_generalized_cross_entropy: CategoricalGeneralizedCrossEntropy,
    categorical_hinge: CategoricalHinge, cosine_similarity: CosineSimilarity, dice: Dice,
    tversky: Tversky, circle: Circle,
    ctc: CTC,
}
for _cls in (LossFunctionWrapper, *_CLASS_OF_FUNCTION.values()):
    LOSSES.add(_cls.__name__, _cls)
for _alias, _fn in _FUNCTIONS.items():
    LOSSES.add(_alias, _CLASS_OF_FUNCTION[_fn])
    LOSS_FUNCTIONS.add(_alias, _fn)


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
    "BinaryCrossentropy", "BinaryFocalCrossentropy", "CategoricalCrossentropy",
    "CategoricalFocalCrossentropy", "CategoricalGeneralizedCrossEntropy", "CategoricalHinge",
    "Circle", "CosineSimilarity", "Dice", "Hinge", "Huber", "KLDivergence", "LOSSES",
    "LogCosh", "Loss", "LossFunctionWrapper", "MeanAbsoluteError",
    "MeanAbsolutePercentageError", "MeanSquaredError", "MeanSquaredLogarithmicError",
    "Poisson", "SparseCategoricalCrossentropy", "SquaredHinge", "Tversky",
    "binary_crossentropy", "binary_focal_crossentropy", "categorical_crossentropy",
    "categorical_focal_crossentropy", "categorical_generalized_cross_entropy",
    "categorical_hinge", "circle", "cosine_similarity", "deserialize", "dice", "get",
    "hinge", "huber", "kl_divergence", "log_cosh", "mean_absolute_error",
    "mean_absolute_percentage_error", "mean_squared_error", "mean_squared_logarithmic_error",
    "poisson",
    "CTC", "ctc",
    "reduce_weighted_values", "serialize", "sparse_categorical_crossentropy",
    "squared_hinge", "tversky",
]

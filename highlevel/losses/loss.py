"""The :class:`Loss` base class and :class:`LossFunctionWrapper` (``keras.losses.Loss``),
with the registries every loss family adds itself to."""

from ...backends.registry import Registry
from ...layers.naming import snake_case
from .loss_utils import as_pred, as_true, keras_mask_array, squeeze_or_expand_to_same_rank
from .reduction import standardize_reduction, reduce_weighted_values

LOSSES = Registry("loss")
LOSS_FUNCTIONS = Registry("loss function")


class Loss:
    """Base class of losses: subclasses implement ``call(y_true, y_pred)`` returning the
    per-sample losses; ``__call__`` applies ``sample_weight`` and the ``reduction``.

    Args:
        reduction: ``"sum_over_batch_size"`` (default), ``"sum"``, ``"mean"``,
            ``"mean_with_sample_weight"`` or ``"none"``/``None``.
        name: the loss name (default: the class name in snake case).
        dtype: compute dtype for ``y_pred`` (default: keep its float dtype).
    """

    def __init__(self, name=None, reduction="sum_over_batch_size", dtype=None):
        self.reduction = standardize_reduction(reduction)
        self.name = name or snake_case(type(self).__name__)
        self.dtype = dtype

    def __call__(self, y_true, y_pred, sample_weight=None):
        in_mask = keras_mask_array(y_pred)
        y_pred = as_pred(y_pred, self.dtype)
        losses, mask = self._losses_and_mask(as_true(y_true), y_pred)
        if in_mask is not None:
            # Keras 3: the mask a layer attached to ``y_pred`` weights the losses
            # (padded timesteps count for nothing), combined with the loss' own mask.
            mask = in_mask if mask is None else mask * in_mask
        return reduce_weighted_values(losses, sample_weight, mask, self.reduction)

    def _losses_and_mask(self, y_true, y_pred):
        return self.call(y_true, y_pred), None

    def call(self, y_true, y_pred):
        """The per-sample losses (subclasses implement it)."""
        raise NotImplementedError(f"Loss '{type(self).__name__}' must implement call()")

    def get_config(self):
        """``{"name", "reduction"}`` plus the subclass' constructor arguments."""
        return {"name": self.name, "reduction": self.reduction}

    @classmethod
    def from_config(cls, config):
        """Rebuild the loss from :meth:`get_config`'s dict."""
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
        """``fn(y_true, y_pred, **kwargs)`` after Keras' rank alignment."""
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self):
        """The base config, ``fn``'s keyword arguments, and ``fn``'s name for a plain
        wrapper."""
        config = super().get_config()
        config.update(self._fn_kwargs)
        if type(self) is LossFunctionWrapper:
            config["fn"] = getattr(self.fn, "__name__", repr(self.fn))
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """Rebuild the loss; a plain wrapper's ``fn`` name resolves through
        ``custom_objects`` and the built-in loss functions."""
        config = dict(config)
        if cls is LossFunctionWrapper:
            fn = config.pop("fn")
            if isinstance(fn, str):
                fn = LOSS_FUNCTIONS.lookup(fn, custom_objects)
            return cls(fn, **config)
        config.pop("fn", None)
        return cls(**config)

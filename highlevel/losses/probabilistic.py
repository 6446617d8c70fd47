"""Probabilistic losses: the cross-entropy classes (functions in :mod:`.cross_entropy`),
binary and categorical focal cross-entropy, generalized cross-entropy, Kullback-Leibler
divergence and Poisson (``keras.losses`` names and defaults)."""

from ...backends import ops
from ...backends import state
from ...backends.ops.losses import binary_crossentropy_elementwise, integer_labels
from .cross_entropy import (sparse_losses_and_mask, binary_crossentropy,
                            categorical_crossentropy, sparse_categorical_crossentropy)
from .loss import LossFunctionWrapper
from .loss_utils import epsilon, as_pred, as_true, cast_to, unwrap, prepare


# ---------------------------------------------------------------------- loss functions
def kl_divergence(y_true, y_pred):
    """``sum(t * log(t / p), axis=-1)`` with both clipped to ``[eps, 1]``."""
    y_true, y_pred = prepare(y_true, y_pred)
    t = ops.clip(y_true, epsilon(), 1.0)
    p = ops.clip(y_pred, epsilon(), 1.0)
    return ops.sum(ops.multiply(t, ops.log(ops.divide(t, p))), axis=-1)


def poisson(y_true, y_pred):
    """``mean(y_pred - y_true * log(y_pred + eps), axis=-1)``."""
    y_true, y_pred = prepare(y_true, y_pred)
    log_pred = ops.log(ops.add(y_pred, epsilon()))
    return ops.mean(ops.subtract(y_pred, ops.multiply(y_true, log_pred)), axis=-1)


def _smoothed(y_true, label_smoothing, classes):
    """Labels pulled towards ``1 / classes`` by ``label_smoothing``."""
    if not label_smoothing:
        return y_true
    return ops.add(ops.multiply(y_true, 1.0 - label_smoothing), label_smoothing / classes)


def binary_focal_crossentropy(y_true, y_pred, apply_class_balancing=False, alpha=0.25,
                              gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1):
    """Binary cross-entropy down-weighted on well-classified examples by
    ``(1 - p_t) ** gamma`` (and by ``alpha`` / ``1 - alpha`` per class when
    ``apply_class_balancing``), averaged over ``axis``."""
    y_pred = as_pred(y_pred)
    y_true = _smoothed(cast_to(as_true(y_true), y_pred.dtype), label_smoothing, 2)
    if from_logits:
        y_pred = ops.sigmoid(y_pred)
    cross_entropy = binary_crossentropy_elementwise(y_true, y_pred, False)
    not_true = ops.subtract(1.0, y_true)
    p_t = ops.add(ops.multiply(y_true, y_pred), ops.multiply(not_true, ops.subtract(1.0, y_pred)))
    focal = ops.multiply(ops.power(ops.subtract(1.0, p_t), float(gamma)), cross_entropy)
    if apply_class_balancing:
        weight = ops.add(ops.multiply(y_true, alpha), ops.multiply(not_true, 1.0 - alpha))
        focal = ops.multiply(weight, focal)
    return ops.mean(focal, axis=axis)


def categorical_focal_crossentropy(y_true, y_pred, alpha=0.25, gamma=2.0, from_logits=False,
                                   label_smoothing=0.0, axis=-1):
    """Categorical cross-entropy of one-hot labels weighted by
    ``alpha * (1 - p) ** gamma`` per class, summed over ``axis``."""
    if isinstance(axis, bool):
        raise ValueError(f"`axis` must be of type `int`. Received: axis={axis} of type "
                         f"{type(axis)}")
    y_pred = as_pred(y_pred)
    y_true = cast_to(as_true(y_true), y_pred.dtype)
    y_true = _smoothed(y_true, label_smoothing, y_true.shape[axis])
    if from_logits:
        y_pred = ops.softmax(y_pred, axis=axis)
    output = ops.divide(y_pred, ops.sum(y_pred, axis=axis, keepdims=True))
    output = ops.clip(output, epsilon(), 1.0 - epsilon())
    cross_entropy = ops.negative(ops.multiply(y_true, ops.log(output)))
    weight = ops.multiply(ops.power(ops.subtract(1.0, output), float(gamma)), alpha)
    return ops.sum(ops.multiply(weight, cross_entropy), axis=axis)


def categorical_generalized_cross_entropy(y_true, y_pred, q):
    """Generalized cross-entropy (Zhang & Sabuncu 2018) of integer labels:
    ``(1 - p_label ** q) / q``, robust to noisy labels for ``q`` in (0, 1)."""
    y_pred = as_pred(y_pred)
    xp = state.backend().xp
    labels = integer_labels(unwrap(as_true(y_true)))
    one_hot = (labels[..., None] == xp.arange(y_pred.shape[-1])).astype(y_pred.dtype)
    p = ops.sum(ops.multiply(y_pred, one_hot), axis=-1)
    return ops.divide(ops.subtract(1.0, ops.power(p, float(q))), float(q))


# ---------------------------------------------------------------------------- classes
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


class BinaryFocalCrossentropy(LossFunctionWrapper):
    """Binary focal cross-entropy (Lin et al. 2017): ``gamma`` focuses on hard examples;
    ``apply_class_balancing`` weighs positives by ``alpha`` and negatives by
    ``1 - alpha``."""

    def __init__(self, apply_class_balancing=False, alpha=0.25, gamma=2.0, from_logits=False,
                 label_smoothing=0.0, axis=-1, reduction="sum_over_batch_size",
                 name="binary_focal_crossentropy", dtype=None):
        super().__init__(binary_focal_crossentropy, reduction=reduction, name=name,
                         dtype=dtype, apply_class_balancing=apply_class_balancing,
                         alpha=alpha, gamma=gamma, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)
        self.apply_class_balancing, self.alpha, self.gamma = apply_class_balancing, alpha, gamma
        self.from_logits, self.label_smoothing, self.axis = from_logits, label_smoothing, axis


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


class CategoricalFocalCrossentropy(LossFunctionWrapper):
    """Categorical focal cross-entropy of one-hot labels: each class' cross-entropy
    weighted by ``alpha * (1 - p) ** gamma``."""

    def __init__(self, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0,
                 axis=-1, reduction="sum_over_batch_size",
                 name="categorical_focal_crossentropy", dtype=None):
        super().__init__(categorical_focal_crossentropy, reduction=reduction, name=name,
                         dtype=dtype, alpha=alpha, gamma=gamma, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)
        self.alpha, self.gamma = alpha, gamma
        self.from_logits, self.label_smoothing, self.axis = from_logits, label_smoothing, axis


class CategoricalGeneralizedCrossEntropy(LossFunctionWrapper):
    """Generalized cross-entropy of integer labels; ``q`` in (0, 1) trades the
    cross-entropy (q -> 0) for the mean absolute error (q -> 1)."""

    def __init__(self, q=0.5, reduction="sum_over_batch_size",
                 name="categorical_generalized_cross_entropy", dtype=None):
        if not 0 < q < 1:
            raise ValueError(f"CategoricalGeneralizedCrossEntropy: q must be in the "
                             f"interval (0, 1), got q={q}")
        super().__init__(categorical_generalized_cross_entropy, reduction=reduction,
                         name=name, dtype=dtype, q=q)
        self.q = q


class SparseCategoricalCrossentropy(LossFunctionWrapper):
    """Cross-entropy of integer labels (``from_logits=False, ignore_class=None``).

    With ``ignore_class``, samples with that label get zero weight and the
    ``"sum_over_batch_size"`` reduction divides by the number of valid samples (Keras).
    """

    def __init__(self, from_logits=False, ignore_class=None, reduction="sum_over_batch_size",
                 axis=-1, name="sparse_categorical_crossentropy", dtype=None):
        super().__init__(sparse_categorical_crossentropy, reduction=reduction, name=name,
                         dtype=dtype, from_logits=from_logits, ignore_class=ignore_class,
                         axis=axis)
        self.from_logits = from_logits
        self.ignore_class = ignore_class
        self.axis = axis

    def call(self, y_true, y_pred):
        """The per-sample cross-entropies (0 for ``ignore_class``)."""
        return self._losses_and_mask(y_true, y_pred)[0]

    def _losses_and_mask(self, y_true, y_pred):
        return sparse_losses_and_mask(y_true, y_pred, self.from_logits, self.ignore_class,
                                       self.axis)

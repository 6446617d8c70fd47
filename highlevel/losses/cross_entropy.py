"""The cross-entropy loss functions: binary, categorical and sparse categorical.

From logits they use the fused, numerically stable softmax/sigmoid cross-entropies; from
probabilities they clip to ``[eps, 1 - eps]`` (``lamina.config.epsilon()``, 1e-7 by default)
and take the log, as Keras does, each as
one fused op with its own backward (the ops live in :mod:`lamina.backends.ops.losses`).
"""

from ...backends import ops
from ...backends.ops.losses import (binary_crossentropy_elementwise,
                                    categorical_crossentropy_from_probs, integer_labels,
                                    sparse_categorical_crossentropy_from_probs)
from .loss_utils import as_pred, as_true, cast_to, unwrap, move_to_last, prepare


# ---------------------------------------------------------------------------- helpers
def _sparse_labels(y_true, y_pred):
    """Integer labels of shape ``y_pred.shape[:-1]`` (a trailing 1 squeezed, floats cast)."""
    labels = unwrap(as_true(y_true))
    if labels.ndim == y_pred.ndim and labels.shape[-1] == 1:
        labels = labels.reshape(labels.shape[:-1])
    labels = integer_labels(labels)
    if tuple(labels.shape) != tuple(y_pred.shape[:-1]):
        raise ValueError(
            "Arguments `target` and `output` must have the same shape up until the last "
            f"dimension: target.shape={tuple(unwrap(y_true).shape)}, "
            f"output.shape={tuple(y_pred.shape)}"
        )
    return labels


# ---------------------------------------------------------------------- loss functions
def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """Binary cross-entropy averaged over ``axis`` (stable from logits)."""
    y_true, y_pred = prepare(y_true, y_pred)
    if label_smoothing:
        y_true = ops.add(ops.multiply(y_true, 1.0 - label_smoothing), 0.5 * label_smoothing)
    return ops.mean(binary_crossentropy_elementwise(y_true, y_pred, from_logits), axis=axis)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """Cross-entropy of one-hot / probability targets along ``axis``.

    From logits it is the fused stable softmax cross-entropy; from probabilities Keras'
    ``-sum(t * log(clip(p / sum(p), eps, 1 - eps)))``.
    """
    if isinstance(axis, bool):
        raise ValueError(f"`axis` must be of type `int`. Received: axis={axis} of type "
                         f"{type(axis)}")
    y_pred = as_pred(y_pred)
    y_true = cast_to(as_true(y_true), y_pred.dtype)
    if tuple(y_true.shape) != tuple(y_pred.shape):
        raise ValueError(
            "Arguments `target` and `output` must have the same shape. Received: "
            f"target.shape={tuple(y_true.shape)}, output.shape={tuple(y_pred.shape)}"
        )
    y_true, y_pred = move_to_last(y_true, axis), move_to_last(y_pred, axis)
    if label_smoothing:
        classes = y_true.shape[-1]
        y_true = ops.add(ops.multiply(y_true, 1.0 - label_smoothing), label_smoothing / classes)
    if from_logits:
        return ops.softmax_cross_entropy(y_true, y_pred)
    return categorical_crossentropy_from_probs(y_true, y_pred)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, ignore_class=None,
                                    axis=-1):
    """Cross-entropy of integer labels (shape ``(n,)`` or ``(n, 1)``, int or float holding
    integers) against ``y_pred`` of shape ``(n, classes)``. Labels equal to
    ``ignore_class`` contribute zero."""
    return sparse_losses_and_mask(y_true, y_pred, from_logits, ignore_class, axis)[0]


def sparse_losses_and_mask(y_true, y_pred, from_logits, ignore_class, axis=-1):
    y_pred = move_to_last(as_pred(y_pred), axis)
    labels = _sparse_labels(y_true, y_pred)
    mask = None
    if ignore_class is not None:
        mask = labels != ignore_class
        labels = labels * mask
    if from_logits:
        losses = ops.sparse_softmax_cross_entropy(labels, y_pred)
    else:
        losses = sparse_categorical_crossentropy_from_probs(labels, y_pred)
    if mask is not None:
        mask = mask.astype(y_pred.dtype)
        losses = ops.multiply(losses, mask)
    return losses, mask


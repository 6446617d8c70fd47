"""``lamina.utils``: helpers as in ``keras.utils``."""

import numpy as np

from ...backends.random import set_random_seed
from .plot_history import plot_history
from .plot_model import model_to_dot, plot_model


def to_categorical(y, num_classes=None, dtype="float32"):
    """One-hot encode integer class labels ``y`` (any shape) -> shape ``(*y.shape, classes)``.

    Raises ``ValueError`` for negative labels or labels ``>= num_classes``.
    """
    labels = np.asarray(y)
    if labels.ndim > 1 and labels.shape[-1] == 1:
        labels = labels[..., 0]
    if labels.dtype.kind not in "iub" and not (
            labels.dtype.kind == "f" and np.all(labels == np.round(labels))):
        raise ValueError(f"to_categorical expects integer labels, got dtype {labels.dtype}")
    labels = labels.astype(np.int64)
    if labels.size and labels.min() < 0:
        raise ValueError(f"to_categorical got a negative label {labels.min()}")
    num_classes = int(labels.max()) + 1 if num_classes is None else int(num_classes)
    if labels.size and labels.max() >= num_classes:
        raise ValueError(f"label {labels.max()} is out of range for num_classes={num_classes}")
    out = np.zeros(labels.shape + (num_classes,), dtype=dtype)
    np.put_along_axis(out, labels[..., None], 1, axis=-1)
    return out


__all__ = ["model_to_dot", "plot_history", "plot_model", "set_random_seed", "to_categorical"]

"""Numerical helpers as in ``keras.utils``: ``to_categorical`` and ``normalize``."""

import numpy as np


def to_categorical(x, num_classes=None, dtype="float32"):
    """One-hot encode integer class labels ``x`` (any shape; a last axis of size 1 is
    replaced) -> shape ``(*x.shape, num_classes)``, as ``keras.utils.to_categorical``
    (lamina keeps Keras 2's ``dtype`` argument, default float32).

    Raises ``ValueError`` for non-integer or negative labels or labels ``>= num_classes``.
    """
    labels = np.asarray(x)
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


def normalize(x, axis=-1, order=2):
    """``x`` divided by its ``order``-norm along ``axis`` (zero norms left as 1), as
    ``keras.utils.normalize`` on NumPy arrays."""
    x = np.asarray(x)
    norm = np.atleast_1d(np.linalg.norm(x, order, axis))
    norm[norm == 0] = 1
    return x / np.expand_dims(norm, axis if axis is not None else -1)

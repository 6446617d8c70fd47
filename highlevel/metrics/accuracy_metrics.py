"""Accuracy metrics: exact, binary, categorical, sparse categorical and top-k accuracy,
as functions (per-sample 0/1 values) and as mean metrics (``keras.metrics`` names)."""

from ...backends import state
from .metric import engine_array, aligned_floats
from .reduction_metrics import wrapped


def accuracy(y_true, y_pred):
    """1.0 where ``y_true == y_pred`` exactly, else 0.0."""
    y_true, y_pred = aligned_floats(y_true, y_pred)
    return (y_true == y_pred).astype(state.floatx())


def binary_accuracy(y_true, y_pred, threshold=0.5):
    """1.0 where ``(y_pred > threshold) == y_true``."""
    y_true, y_pred = aligned_floats(y_true, y_pred)
    return (y_true == (y_pred > threshold)).astype(state.floatx())


def categorical_accuracy(y_true, y_pred):
    """1.0 where ``argmax(y_true) == argmax(y_pred)`` along the last axis."""
    return (engine_array(y_true).argmax(axis=-1) == engine_array(y_pred).argmax(axis=-1)) \
        .astype(state.floatx())


def _sparse_targets(y_true, y_pred):
    labels = engine_array(y_true)
    if labels.ndim == y_pred.ndim and labels.shape[-1] == 1:
        labels = labels.reshape(labels.shape[:-1])
    return labels


def sparse_categorical_accuracy(y_true, y_pred):
    """1.0 where the integer label equals ``argmax(y_pred)`` (labels (n,) or (n, 1))."""
    y_pred = engine_array(y_pred)
    labels = _sparse_targets(y_true, y_pred)
    return (labels == y_pred.argmax(axis=-1)).astype(state.floatx())


def in_top_k(labels, predictions, k):
    """True where ``predictions[label]`` is at least the k-th largest score (ties count)."""
    xp = state.backend().xp
    classes = predictions.shape[-1]
    flat = predictions.reshape(-1, classes)
    flat_labels = labels.reshape(-1).astype("int64")
    target = flat[xp.arange(flat.shape[0]), flat_labels]
    if k >= classes:
        hits = xp.ones(flat_labels.shape, dtype=bool)
    else:
        kth = -xp.partition(-flat, k - 1, axis=-1)[:, k - 1]
        hits = target >= kth
    return hits.reshape(labels.shape)


def top_k_categorical_accuracy(y_true, y_pred, k=5):
    """1.0 where the one-hot target class is among the ``k`` highest scores."""
    return in_top_k(engine_array(y_true).argmax(axis=-1), engine_array(y_pred), k).astype(state.floatx())


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5, from_sorted_ids=False):
    """1.0 where the integer label is among the ``k`` highest scores; with
    ``from_sorted_ids=True``, ``y_pred`` already holds class ids sorted by score (as
    ``top_k`` returns them) and the label is looked for in its first ``k``."""
    y_pred = engine_array(y_pred)
    labels = _sparse_targets(y_true, y_pred)
    if from_sorted_ids:
        hits = (y_pred[..., :k] == labels[..., None].astype(y_pred.dtype)).any(axis=-1)
        return hits.astype(state.floatx())
    return in_top_k(labels, y_pred, k).astype(state.floatx())


Accuracy = wrapped("Accuracy", accuracy, "accuracy",
                    "How often predictions equal labels exactly.")
BinaryAccuracy = wrapped("BinaryAccuracy", binary_accuracy, "binary_accuracy",
                          "How often ``y_pred > threshold`` matches binary labels.",
                          threshold=0.5)
CategoricalAccuracy = wrapped("CategoricalAccuracy", categorical_accuracy,
                               "categorical_accuracy",
                               "How often argmax(y_pred) matches argmax of one-hot labels.")
SparseCategoricalAccuracy = wrapped(
    "SparseCategoricalAccuracy", sparse_categorical_accuracy, "sparse_categorical_accuracy",
    "How often argmax(y_pred) matches integer labels.")
TopKCategoricalAccuracy = wrapped(
    "TopKCategoricalAccuracy", top_k_categorical_accuracy, "top_k_categorical_accuracy",
    "How often the one-hot target is in the top ``k`` predictions.", k=5)
SparseTopKCategoricalAccuracy = wrapped(
    "SparseTopKCategoricalAccuracy", sparse_top_k_categorical_accuracy,
    "sparse_top_k_categorical_accuracy",
    "How often the integer target is in the top ``k`` predictions.", k=5,
    from_sorted_ids=False)

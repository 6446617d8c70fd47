"""Metric-learning losses on embeddings: the Circle loss (``keras.losses.Circle``)."""

from ...backends import ops
from ...backends import state
from ...backends.ops.losses import integer_labels
from .loss import LossFunctionWrapper
from .loss_utils import as_pred, unwrap


def _masked_logsumexp(x, mask):
    """``log(sum(exp(x) over mask))`` along axis 1; ``-inf`` for rows with an empty mask
    (with a zero, finite gradient)."""
    xp = state.backend().xp
    values = unwrap(x)
    peak = xp.where(mask, values, -xp.inf).max(axis=1, keepdims=True)
    empty = ~mask.any(axis=1, keepdims=True)
    peak = xp.where(empty, 0, peak).astype(values.dtype)
    total = ops.sum(ops.multiply(ops.exp(ops.subtract(x, peak)), mask.astype(values.dtype)),
                    axis=1, keepdims=True)
    offset = xp.where(empty, -xp.inf, peak).astype(values.dtype)
    return ops.reshape(ops.add(ops.log(ops.add(total, empty.astype(values.dtype))), offset),
                       (-1,))


def _labels(labels):
    return integer_labels(unwrap(labels)).reshape(-1)


def circle(y_true, y_pred, ref_labels=None, ref_embeddings=None, remove_diagonal=True,
           gamma=80, margin=0.4):
    """Circle loss (Sun et al. 2020) of L2-normalized embeddings ``y_pred`` (n, d) with
    integer labels ``y_true`` (n,), against ``ref_embeddings``/``ref_labels`` (default:
    the batch itself): similar pairs are pulled within ``margin``, dissimilar ones pushed
    apart, each pair weighted by how far it is from its optimum; ``gamma`` scales."""
    xp = state.backend().xp
    y_pred = as_pred(y_pred)
    labels = _labels(y_true)
    reference = y_pred if ref_embeddings is None else as_pred(ref_embeddings)
    reference_labels = labels if ref_labels is None else _labels(ref_labels)
    distances = ops.relu(ops.subtract(1.0, ops.matmul(y_pred, ops.transpose(reference))))
    positive = labels[:, None] == reference_labels[None, :]
    negative = ~positive
    if remove_diagonal:
        positive = positive & ~xp.eye(positive.shape[0], positive.shape[1], dtype=bool)
    dtype = distances.dtype
    positive_weights = ops.relu(ops.multiply(ops.add(distances, margin),
                                             positive.astype(dtype)))
    negative_weights = ops.relu(ops.multiply(ops.subtract(1.0 + margin, distances),
                                             negative.astype(dtype)))
    positive_terms = ops.multiply(ops.multiply(positive_weights, -float(gamma)),
                                  ops.subtract(margin, distances))
    negative_terms = ops.multiply(ops.multiply(negative_weights, float(gamma)),
                                  ops.subtract(1.0 - margin, distances))
    return ops.softplus(ops.add(_masked_logsumexp(positive_terms, positive),
                                _masked_logsumexp(negative_terms, negative)))


class Circle(LossFunctionWrapper):
    """Circle loss for embeddings (``y_pred`` L2-normalized, ``y_true`` integer labels);
    samples with a zero loss do not count in the ``"sum_over_batch_size"`` divisor, as in
    Keras."""

    def __init__(self, gamma=80.0, margin=0.4, remove_diagonal=True,
                 reduction="sum_over_batch_size", name="circle", dtype=None):
        super().__init__(circle, reduction=reduction, name=name, dtype=dtype, gamma=gamma,
                         margin=margin, remove_diagonal=remove_diagonal)
        self.gamma, self.margin, self.remove_diagonal = gamma, margin, remove_diagonal

    def _losses_and_mask(self, y_true, y_pred):
        losses = self.call(y_true, y_pred)
        return losses, (unwrap(losses) > 0).astype(losses.dtype)

"""The CTC (Connectionist Temporal Classification) loss for unaligned sequence labels
(``keras.losses.CTC`` / ``keras.losses.ctc``), on the :func:`lamina.ops.ctc_loss` op."""

from ...backends import ops
from ...backends import state
from ...backends.ops.losses import integer_labels
from .loss import Loss, LossFunctionWrapper
from .loss_utils import unwrap


def ctc(y_true, y_pred):
    """CTC loss per sample, as ``keras.losses.ctc``.

    Args:
        y_true: integer labels, shape (batch_size, max_length), padded with 0: ``0`` is
            the blank/mask index and is never a class. Each sample's label length is its
            number of non-zero entries.
        y_pred: logits (not softmax-normalized), shape (batch_size, max_length,
            num_classes); every frame counts.

    Returns:
        The negative log-likelihoods, shape (batch_size,).
    """
    labels, logits = unwrap(y_true), y_pred
    if labels.ndim != 2:
        raise ValueError(f"Targets `y_true` are expected to be a tensor of shape "
                         f"`(batch_size, max_length)` in integer format. Received: "
                         f"y_true.shape={tuple(labels.shape)}")
    if len(logits.shape) != 3:
        raise ValueError(f"Logits `y_pred` are expected to be a tensor of shape "
                         f"`(batch_size, max_length, num_classes)`. Received: "
                         f"y_pred.shape={tuple(logits.shape)}")
    labels = integer_labels(labels)
    label_length = (labels != 0).sum(axis=-1)
    input_length = state.backend().xp.full(label_length.shape, logits.shape[1],
                                           dtype=label_length.dtype)
    return ops.ctc_loss(labels, logits, label_length, input_length, mask_index=0)


class CTC(LossFunctionWrapper):
    """CTC loss, as ``keras.losses.CTC``: ``y_true`` (batch_size, max_length) integer
    labels padded with the blank 0, ``y_pred`` (batch_size, time, num_classes) logits.

    Args:
        reduction: ``"sum_over_batch_size"`` (default), ``"sum"``, ``"mean"``,
            ``"mean_with_sample_weight"`` or ``"none"``/``None``.
        name: the loss name. Defaults to ``"ctc"``.
        dtype: compute dtype for ``y_pred`` (default: keep its float dtype).
    """

    def __init__(self, reduction="sum_over_batch_size", name="ctc", dtype=None):
        super().__init__(ctc, reduction=reduction, name=name, dtype=dtype)

    def get_config(self):
        """``{"name", "reduction"}``, as Keras."""
        return Loss.get_config(self)

"""Weighting and reduction of per-sample losses (Keras' ``reduction`` argument)."""

from ...backends import ops, replica
from ...backends import state
from ...backends.autodiff import Tensor, as_engine_array
from .loss_utils import epsilon, cast_to, unwrap, squeeze_or_expand_to_same_rank

REDUCTIONS = ("sum_over_batch_size", "sum", "mean", "mean_with_sample_weight", "none", None)


def standardize_reduction(reduction):
    if reduction == "auto":            # Keras 2 configs
        return "sum_over_batch_size"
    if reduction not in REDUCTIONS:
        raise ValueError(
            f"Invalid value for argument `reduction`. Expected one of {list(REDUCTIONS)}. "
            f"Received: reduction={reduction}"
        )
    return reduction


def align_weights(weights, values):
    """Keras' rank alignment of ``sample_weight`` to the losses, then trailing axes added
    so that a per-sample weight broadcasts over per-timestep losses."""
    received = tuple(weights.shape)
    values, weights = squeeze_or_expand_to_same_rank(values, weights)
    if weights.ndim < values.ndim:
        shape = tuple(weights.shape) + (1,) * (values.ndim - weights.ndim)
        weights = ops.reshape(weights, shape) if isinstance(weights, Tensor) else \
            weights.reshape(shape)
    if weights.ndim > values.ndim or any(w not in (1, v) for w, v in
                                         zip(weights.shape, values.shape)):
        raise ValueError(f"sample_weight of shape {received} does not match the losses of "
                         f"shape {tuple(values.shape)} (one per sample, or per sample and "
                         f"timestep)")
    return values, weights


def replica_divisor(count=None, offset=0.0):
    """What this process' loss divides its weighted sum by in a data-parallel step, so
    that the processes' losses, averaged with the weight of each one's share of the
    global batch (as its gradients are), are the loss of the whole global batch.

    ``count`` is this process' own denominator (its elements, valid mask entries or
    weight sum; None for a loss with none, ``"sum"``); the global denominator is ``count``
    summed over the processes plus ``offset``. Returns that times this process' share of
    the batch's rows, or None outside a data-parallel step (divide by ``count + offset``
    as usual). Every process calls it in the same order: it is a collective.
    """
    if replica.current_share() is None:
        return None
    total = 1.0
    if count is not None:
        summed = replica.cross_replica_sum(state.backend().xp.full((1,), count, "float64"))
        total = float(summed[0]) + offset
    return total * replica.share_fraction()


def _divided(total, divisor):
    return ops.multiply(total, 1.0 / divisor if divisor else 0.0)


def reduce_weighted_values(values, sample_weight=None, mask=None,
                           reduction="sum_over_batch_size"):
    """Weight per-sample ``values`` by ``sample_weight`` (and a validity ``mask``) and reduce.

    ``"sum_over_batch_size"``/``"mean"``: sum of the weighted values divided by their
    number of elements (by the valid entries' count with a ``mask``); ``"sum"``: their
    sum; ``"mean_with_sample_weight"``: divided by the sum of the weights;
    ``"none"``/``None``: the weighted values. In a data-parallel step the denominators are
    those of the global batch (:func:`replica_divisor`; a collective only with a mask or
    ``"mean_with_sample_weight"``).
    """
    dtype = values.dtype
    shared = None
    if mask is not None and reduction in ("sum_over_batch_size", "mean"):
        valid = float(mask.sum())
        shared = replica_divisor(valid, epsilon())
        if shared is None:
            mask = mask * (mask.size / (valid + epsilon()))
    if sample_weight is not None:
        weights = sample_weight if isinstance(sample_weight, Tensor) and \
            sample_weight.requires_grad else as_engine_array(sample_weight)
        weights = cast_to(weights, dtype)
        if mask is not None:
            mask_aligned, weights = align_weights(weights, mask)
            weights = ops.multiply(weights, mask_aligned)
    else:
        weights = mask
    if weights is not None:
        values, weights = align_weights(weights, values)
        values = ops.multiply(values, weights)
    if reduction is None or reduction == "none" or values.ndim == 0:
        return values
    if reduction == "sum":
        shared = replica_divisor()
        return ops.sum(values) if shared is None else _divided(ops.sum(values), shared)
    if reduction == "mean_with_sample_weight" and weights is not None:
        divisor = float(state.backend().xp.broadcast_to(unwrap(weights), values.shape).sum())
        shared = replica_divisor(divisor)
        return _divided(ops.sum(values), divisor if shared is None else shared)
    # no mask: the local mean already is this share's part of the global one (its
    # elements are its rows times the same per-row count), with no collective
    if values.data.size == 0:
        return Tensor(state.backend().xp.zeros((), dtype=dtype))
    return ops.mean(values) if shared is None else _divided(ops.sum(values), shared)

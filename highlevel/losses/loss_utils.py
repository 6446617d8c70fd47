"""Argument handling shared by losses and metrics: ``y_true``/``y_pred`` as engine arrays
or Tensors of the right dtype, and Keras' rank alignment.
"""

from ...backends import ops
from ...backends import state
from ...backends.autodiff import Tensor, as_engine_array
from ...backends.state import epsilon  # noqa: F401  (re-exported to losses and metrics)


def unwrap(x):
    return x.data if isinstance(x, Tensor) else x


def as_pred(y_pred, dtype=None):
    """``y_pred`` as a floating Tensor (arrays keep their float dtype unless ``dtype``)."""
    if not isinstance(y_pred, Tensor):
        y_pred = Tensor(y_pred)
    if dtype is not None and y_pred.dtype != dtype:
        return ops.cast(y_pred, dtype)
    if y_pred.dtype.kind != "f" or y_pred.dtype.itemsize < 4:
        # float16 model outputs (mixed precision): the loss is computed in floatx (Keras')
        return ops.cast(y_pred, state.floatx())
    return y_pred


def keras_mask_array(y_pred):
    """The mask a layer attached to ``y_pred`` (``_keras_mask``) as a float engine array
    in ``y_pred``'s float dtype, or None."""
    mask = getattr(y_pred, "_keras_mask", None)
    if mask is None:
        return None
    dtype = y_pred.dtype if y_pred.dtype.kind == "f" else state.floatx()
    return unwrap(mask).astype(dtype)


def as_true(y_true):
    """``y_true`` as an engine array, or the Tensor itself (it may need a gradient)."""
    return y_true if isinstance(y_true, Tensor) else as_engine_array(y_true)


def cast_to(x, dtype):
    """``x`` (array or Tensor) in ``dtype``; Tensors needing a gradient keep their graph."""
    if x.dtype == dtype:
        return x
    if isinstance(x, Tensor):
        return ops.cast(x, dtype) if x.requires_grad else Tensor(x.data.astype(dtype))
    return x.astype(dtype)


def prepare(y_true, y_pred):
    """Common preamble: tensors, y_true cast to y_pred's dtype, ranks aligned."""
    y_pred = as_pred(y_pred)
    y_true = cast_to(as_true(y_true), y_pred.dtype)
    return squeeze_or_expand_to_same_rank(y_true, y_pred)


def _squeeze_last(x):
    return ops.squeeze(x, axis=-1) if isinstance(x, Tensor) else x.reshape(x.shape[:-1])


def _expand_last(x):
    return ops.expand_dims(x, -1) if isinstance(x, Tensor) else x.reshape(x.shape + (1,))


def squeeze_or_expand_to_same_rank(x1, x2, expand_rank_1=True):
    """Keras' rank alignment: drop (or add) a trailing length-1 axis when ranks differ by 1."""
    rank1, rank2 = x1.ndim, x2.ndim
    if rank1 == rank2 + 1 and x1.shape[-1] == 1:
        if rank2 == 1 and expand_rank_1:
            x2 = _expand_last(x2)
        else:
            x1 = _squeeze_last(x1)
    elif rank2 == rank1 + 1 and x2.shape[-1] == 1:
        if rank1 == 1 and expand_rank_1:
            x1 = _expand_last(x1)
        else:
            x2 = _squeeze_last(x2)
    return x1, x2


def move_to_last(x, axis):
    """Move ``axis`` of a Tensor/array to the end (no-op for the last axis)."""
    axis = axis % x.ndim
    if axis == x.ndim - 1:
        return x
    order = [i for i in range(x.ndim) if i != axis] + [axis]
    return ops.transpose(x, order) if isinstance(x, Tensor) else x.transpose(order)

"""The cross-entropy loss functions: binary, categorical and sparse categorical.

From logits they use the fused, numerically stable softmax/sigmoid cross-entropies; from
probabilities they clip to ``[1e-7, 1 - 1e-7]`` and take the log, as Keras does, each as
one fused op with its own backward.
"""

from ..backends import ops
from ..backends import state
from ..backends.autodiff import record
from ..backends.ops.core import unbroadcast
from .loss_utils import EPSILON, _as_pred, _as_true, _cast, _data, _move_to_last, _prepare


# ---------------------------------------------------------------------------- helpers
def _sigmoid(x):
    xp = state.backend().xp
    out = x * 0.5
    xp.tanh(out, out=out)
    out += 1
    out *= 0.5
    return out


def _sparse_labels(y_true, y_pred):
    """Integer labels of shape ``y_pred.shape[:-1]`` (a trailing 1 squeezed, floats cast)."""
    labels = _data(y_true)
    if labels.ndim == y_pred.ndim and labels.shape[-1] == 1:
        labels = labels.reshape(labels.shape[:-1])
    if labels.dtype.kind != "i":
        labels = labels.astype("int64")
    if tuple(labels.shape) != tuple(y_pred.shape[:-1]):
        raise ValueError(
            "Arguments `target` and `output` must have the same shape up until the last "
            f"dimension: target.shape={tuple(_data(y_true).shape)}, "
            f"output.shape={tuple(y_pred.shape)}"
        )
    return labels


def _check_labels(labels, classes):
    if labels.size and (int(labels.min()) < 0 or int(labels.max()) >= classes):
        raise ValueError(
            f"sparse categorical labels must lie in [0, {classes}) for {classes} classes, "
            f"got values from {int(labels.min())} to {int(labels.max())}"
        )


# ------------------------------------------------------------------- fused cross-entropies
def _binary_crossentropy_elementwise(target, output, from_logits):
    """Elementwise binary cross-entropy, one fused op with its backward.

    From logits: ``max(x, 0) - x * z + log1p(exp(-|x|))`` (stable for any x); from
    probabilities: ``-(z log(p) + (1 - z) log(1 - p))`` with ``p`` clipped to [eps, 1-eps].
    """
    xp = state.backend().xp
    z, x = _data(target), _data(output)
    if from_logits:
        out = xp.maximum(x, 0) - x * z
        out += xp.log1p(xp.exp(-xp.abs(x)))

        def backward(g, needs):
            grad_z = unbroadcast(-g * x, z.shape) if needs[0] else None
            grad_x = unbroadcast(g * (_sigmoid(x) - z), x.shape) if needs[1] else None
            return grad_z, grad_x
    else:
        p = xp.clip(x, EPSILON, 1.0 - EPSILON)
        log_p, log_q = xp.log(p), xp.log(1.0 - p)
        out = -(z * log_p + (1.0 - z) * log_q)

        def backward(g, needs):
            grad_z = unbroadcast(g * (log_q - log_p), z.shape) if needs[0] else None
            grad_x = None
            if needs[1]:
                inside = (x >= EPSILON) & (x <= 1.0 - EPSILON)
                grad_x = unbroadcast(g * ((p - z) / (p * (1.0 - p))) * inside, x.shape)
            return grad_z, grad_x

    return record(out, (target, output), backward, "binary_crossentropy")


def _categorical_crossentropy_probs(target, output):
    """Keras' probability cross-entropy along the last axis, fused:
    ``q = clip(p / sum(p), eps, 1 - eps)``, loss ``-sum(t * log(q))``."""
    xp = state.backend().xp
    t, p = _data(target), _data(output)
    total = p.sum(axis=-1, keepdims=True)
    q = p / total
    qc = xp.clip(q, EPSILON, 1.0 - EPSILON)
    log_q = xp.log(qc)
    out = -(t * log_q).sum(axis=-1)

    def backward(g, needs):
        g_col = g[..., None]
        grad_t = grad_p = None
        if needs[0]:
            grad_t = unbroadcast(-g_col * log_q, t.shape)
        if needs[1]:
            a = -t / qc * ((q >= EPSILON) & (q <= 1.0 - EPSILON))   # dL/dq
            grad_p = g_col * (a - (a * q).sum(axis=-1, keepdims=True)) / total
        return grad_t, grad_p

    return record(out, (target, output), backward, "categorical_crossentropy")


def _sparse_categorical_crossentropy_probs(labels, output):
    """Keras' probability cross-entropy of integer ``labels``, fused (see above)."""
    xp = state.backend().xp
    p = _data(output)
    classes = p.shape[-1]
    flat_p = p.reshape(-1, classes)
    flat_labels = labels.reshape(-1)
    _check_labels(flat_labels, classes)
    rows = xp.arange(flat_labels.shape[0])
    total = flat_p.sum(axis=-1)
    q = flat_p[rows, flat_labels] / total
    qc = xp.clip(q, EPSILON, 1.0 - EPSILON)
    out = -xp.log(qc)

    def backward(g, needs):
        a = g.reshape(-1) * (-1.0 / qc) * ((q >= EPSILON) & (q <= 1.0 - EPSILON))
        grad = xp.broadcast_to((-(a * q) / total)[:, None], flat_p.shape).copy()
        grad[rows, flat_labels] += a / total
        return None, grad.reshape(p.shape)

    return record(out.reshape(p.shape[:-1]), (labels, output), backward,
                  "sparse_categorical_crossentropy")


# ---------------------------------------------------------------------- loss functions
def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """Binary cross-entropy averaged over ``axis`` (stable from logits)."""
    y_true, y_pred = _prepare(y_true, y_pred)
    if label_smoothing:
        y_true = ops.add(ops.multiply(y_true, 1.0 - label_smoothing), 0.5 * label_smoothing)
    return ops.mean(_binary_crossentropy_elementwise(y_true, y_pred, from_logits), axis=axis)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """Cross-entropy of one-hot / probability targets along ``axis``.

    From logits it is the fused stable softmax cross-entropy; from probabilities Keras'
    ``-sum(t * log(clip(p / sum(p), eps, 1 - eps)))``.
    """
    if isinstance(axis, bool):
        raise ValueError(f"`axis` must be of type `int`. Received: axis={axis} of type "
                         f"{type(axis)}")
    y_pred = _as_pred(y_pred)
    y_true = _cast(_as_true(y_true), y_pred.dtype)
    if tuple(y_true.shape) != tuple(y_pred.shape):
        raise ValueError(
            "Arguments `target` and `output` must have the same shape. Received: "
            f"target.shape={tuple(y_true.shape)}, output.shape={tuple(y_pred.shape)}"
        )
    y_true, y_pred = _move_to_last(y_true, axis), _move_to_last(y_pred, axis)
    if label_smoothing:
        classes = y_true.shape[-1]
        y_true = ops.add(ops.multiply(y_true, 1.0 - label_smoothing), label_smoothing / classes)
    if from_logits:
        return ops.softmax_cross_entropy(y_true, y_pred)
    return _categorical_crossentropy_probs(y_true, y_pred)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, ignore_class=None,
                                    axis=-1):
    """Cross-entropy of integer labels (shape ``(n,)`` or ``(n, 1)``, int or float holding
    integers) against ``y_pred`` of shape ``(n, classes)``. Labels equal to
    ``ignore_class`` contribute zero."""
    return _sparse_losses_and_mask(y_true, y_pred, from_logits, ignore_class, axis)[0]


def _sparse_losses_and_mask(y_true, y_pred, from_logits, ignore_class, axis=-1):
    y_pred = _move_to_last(_as_pred(y_pred), axis)
    labels = _sparse_labels(y_true, y_pred)
    mask = None
    if ignore_class is not None:
        mask = labels != ignore_class
        labels = labels * mask
    if from_logits:
        losses = ops.sparse_softmax_cross_entropy(labels, y_pred)
    else:
        losses = _sparse_categorical_crossentropy_probs(labels, y_pred)
    if mask is not None:
        mask = mask.astype(y_pred.dtype)
        losses = ops.multiply(losses, mask)
    return losses, mask


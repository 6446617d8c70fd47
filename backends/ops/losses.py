"""Fused loss ops, each with a hand-written backward: the mean squared error; the
cross-entropies from logits (softmax, sparse softmax) on the numerically stable engine
kernels, and from probabilities (binary, categorical, sparse categorical) in Keras'
clip-to-``[eps, 1 - eps]``-and-log form (``eps``: ``lamina.config.epsilon()``, read per call)."""

from .. import state
from ..trace import host_check
from .core import data_of, index_data, record, unbroadcast
from .activation_kernels import sigmoid as sigmoid_array
from .shape import moveaxis


def integer_labels(labels, xp=None):
    """Sparse class ``labels`` as int64: floats must hold whole numbers (``2.0``), else a
    ``ValueError`` shows the first offending value (NaN, inf, ``1.5``) rather than the
    integer a cast would make of it. ``xp``: the array module of ``labels`` (default the
    active engine's)."""
    if labels.dtype.kind in "iu":
        return labels
    if labels.dtype.kind == "b":
        return labels.astype("int64")
    if labels.dtype.kind != "f":
        raise TypeError(f"sparse categorical labels must be integers (or floats holding "
                        f"integers), got an array of dtype {labels.dtype}")
    xp = xp or state.backend().xp
    whole = xp.isfinite(labels) & (labels == xp.floor(labels))
    if not bool(whole.all()):
        bad = labels.reshape(-1)[int(xp.argmin(whole.reshape(-1)))]
        raise ValueError(f"sparse categorical labels must be whole class indices, got "
                         f"{float(bad)}")
    return labels.astype("int64")


def check_sparse_labels(labels, classes):
    """Raise ``ValueError`` unless every integer label lies in ``[0, classes)``; the
    message shows an offending label and the labels' range."""
    if labels.size and (int(labels.min()) < 0 or int(labels.max()) >= classes):
        low, high = int(labels.min()), int(labels.max())
        raise ValueError(
            f"sparse categorical labels must lie in [0, {classes}) for {classes} classes, "
            f"got {low if low < 0 else high} (labels range from {low} to {high})"
        )


# ------------------------------------------------------------------ regression
def mean_squared_error(targets, predictions):
    """Per-sample ``mean((targets - predictions) ** 2, axis=-1)`` as one op.

    Shapes: targets and predictions broadcastable, (..., d) -> losses (...).
    """
    xp = state.backend().xp
    t, p = data_of(targets), data_of(predictions)
    difference = xp.subtract(p, t)
    losses = xp.multiply(difference, difference).sum(axis=-1)
    scale = 1.0 / difference.shape[-1] if difference.shape[-1] else float("nan")
    losses *= scale                             # the mean of nothing is NaN, as NumPy's

    def backward(g, needs):
        grad_p = difference * (g[..., None] * (2.0 * scale))
        grad_t = unbroadcast(-grad_p, getattr(t, "shape", ())) if needs[0] else None
        return grad_t, unbroadcast(grad_p, p.shape) if needs[1] else None

    return record(losses, (targets, predictions), backward, "mean_squared_error")


# ------------------------------------------------------------------ from logits
def sparse_softmax_cross_entropy(labels, logits):
    """Per-sample cross-entropy of integer ``labels`` against ``softmax(logits)``, fused.

    Shapes: logits (..., classes), labels (...) integer -> losses (...). Labels outside
    ``[0, classes)`` raise ``ValueError``.
    """
    backend = state.backend()
    z = data_of(logits)
    classes = z.shape[-1]
    flat_labels = integer_labels(index_data(labels).reshape(-1)).astype("int64", copy=False)
    host_check(check_sparse_labels, flat_labels, classes)
    flat_logits = z.reshape(-1, classes)
    if flat_labels.shape[0] != flat_logits.shape[0]:
        raise ValueError(
            f"sparse categorical labels of shape {tuple(index_data(labels).shape)} do not "
            f"match logits of shape {tuple(z.shape)}"
        )
    losses, probabilities = backend.sparse_softmax_cross_entropy(flat_logits, flat_labels)

    def backward(g, needs):
        grad = probabilities * g.reshape(-1, 1)
        grad[backend.xp.arange(flat_labels.shape[0]), flat_labels] -= g.reshape(-1)
        return (None, grad.reshape(z.shape))

    return record(losses.reshape(z.shape[:-1]), (labels, logits), backward,
                  "sparse_softmax_cross_entropy")


def softmax_cross_entropy(targets, logits):
    """Per-sample cross-entropy of probability ``targets`` against ``softmax(logits)``, fused.

    Shapes: targets and logits (..., classes) -> losses (...).
    """
    backend = state.backend()
    t, z = data_of(targets), data_of(logits)
    flat_t, flat_z = t.reshape(-1, z.shape[-1]), z.reshape(-1, z.shape[-1])
    losses, probabilities = backend.softmax_cross_entropy(flat_z, flat_t)

    def backward(g, needs):
        g_col = g.reshape(-1, 1)
        grad_t = grad_z = None
        if needs[0]:
            grad_t = (-g_col * backend.log_softmax(flat_z)).reshape(t.shape)
        if needs[1]:
            grad_z = (g_col * (probabilities * flat_t.sum(axis=-1, keepdims=True) - flat_t))
            grad_z = grad_z.reshape(z.shape)
        return grad_t, grad_z

    return record(losses.reshape(z.shape[:-1]), (targets, logits), backward,
                  "softmax_cross_entropy")


# ------------------------------------------------------------------ from probabilities
def binary_crossentropy_elementwise(target, output, from_logits):
    """Elementwise binary cross-entropy, one fused op with its backward.

    From logits: ``max(x, 0) - x * z + log1p(exp(-|x|))`` (stable for any x); from
    probabilities: ``-(z log(p) + (1 - z) log(1 - p))`` with ``p`` clipped to [eps, 1-eps].
    """
    xp = state.backend().xp
    eps = state.epsilon()
    z, x = data_of(target), data_of(output)
    if from_logits:
        out = xp.maximum(x, 0) - x * z
        out += xp.log1p(xp.exp(-xp.abs(x)))

        def backward(g, needs):
            grad_z = unbroadcast(-g * x, z.shape) if needs[0] else None
            grad_x = unbroadcast(g * (sigmoid_array(x) - z), x.shape) if needs[1] else None
            return grad_z, grad_x
    else:
        p = xp.clip(x, eps, 1.0 - eps)
        log_p, log_q = xp.log(p), xp.log(1.0 - p)
        out = -(z * log_p + (1.0 - z) * log_q)

        def backward(g, needs):
            grad_z = unbroadcast(g * (log_q - log_p), z.shape) if needs[0] else None
            grad_x = None
            if needs[1]:
                inside = (x >= eps) & (x <= 1.0 - eps)
                grad_x = unbroadcast(g * ((p - z) / (p * (1.0 - p))) * inside, x.shape)
            return grad_z, grad_x

    return record(out, (target, output), backward, "binary_crossentropy")


def categorical_crossentropy_from_probs(target, output):
    """Keras' probability cross-entropy along the last axis, fused:
    ``q = clip(p / sum(p), eps, 1 - eps)``, loss ``-sum(t * log(q))``."""
    xp = state.backend().xp
    eps = state.epsilon()
    t, p = data_of(target), data_of(output)
    total = p.sum(axis=-1, keepdims=True)
    q = p / total
    qc = xp.clip(q, eps, 1.0 - eps)
    log_q = xp.log(qc)
    out = -(t * log_q).sum(axis=-1)

    def backward(g, needs):
        g_col = g[..., None]
        grad_t = grad_p = None
        if needs[0]:
            grad_t = unbroadcast(-g_col * log_q, t.shape)
        if needs[1]:
            a = -t / qc * ((q >= eps) & (q <= 1.0 - eps))   # dL/dq
            grad_p = g_col * (a - (a * q).sum(axis=-1, keepdims=True)) / total
        return grad_t, grad_p

    return record(out, (target, output), backward, "categorical_crossentropy")


def sparse_categorical_crossentropy_from_probs(labels, output):
    """Keras' probability cross-entropy of integer ``labels``, fused (see above)."""
    xp = state.backend().xp
    eps = state.epsilon()
    p = data_of(output)
    classes = p.shape[-1]
    flat_p = p.reshape(-1, classes)
    flat_labels = integer_labels(labels.reshape(-1))
    host_check(check_sparse_labels, flat_labels, classes)
    rows = xp.arange(flat_labels.shape[0])
    total = flat_p.sum(axis=-1)
    q = flat_p[rows, flat_labels] / total
    qc = xp.clip(q, eps, 1.0 - eps)
    out = -xp.log(qc)

    def backward(g, needs):
        a = g.reshape(-1) * (-1.0 / qc) * ((q >= eps) & (q <= 1.0 - eps))
        grad = xp.broadcast_to((-(a * q) / total)[:, None], flat_p.shape).copy()
        grad[rows, flat_labels] += a / total
        return None, grad.reshape(p.shape)

    return record(out.reshape(p.shape[:-1]), (labels, output), backward,
                  "sparse_categorical_crossentropy")


# ------------------------------------------------------------------ keras.ops names
def _moved_last(target, output, axis):
    """Both tensors with the class ``axis`` moved to the end (no-op for -1)."""
    if axis in (-1, data_of(output).ndim - 1):
        return target, output
    return moveaxis(target, axis, -1), moveaxis(output, axis, -1)


def binary_crossentropy(target, output, from_logits=False):
    """Elementwise binary cross-entropy (no reduction), as ``keras.ops.binary_crossentropy``."""
    return binary_crossentropy_elementwise(target, output, from_logits)


def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Cross-entropy of probability ``target`` against ``output`` (probabilities, or
    logits when ``from_logits``) along ``axis``, one loss per sample."""
    t_shape, o_shape = tuple(data_of(target).shape), tuple(data_of(output).shape)
    if t_shape != o_shape:
        raise ValueError(f"categorical_crossentropy: target and output must have the same "
                         f"shape, got {t_shape} and {o_shape}")
    target, output = _moved_last(target, output, axis)
    if from_logits:
        return softmax_cross_entropy(target, output)
    return categorical_crossentropy_from_probs(target, output)


def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Cross-entropy of integer class ``target`` against ``output`` (probabilities, or
    logits when ``from_logits``) with classes along ``axis``, one loss per sample."""
    if axis not in (-1, data_of(output).ndim - 1):
        output = moveaxis(output, axis, -1)
    labels = index_data(target)
    if labels.ndim == data_of(output).ndim and labels.shape[-1] == 1:
        labels = labels[..., 0]              # (batch, 1) labels, as Keras accepts
    if from_logits:
        return sparse_softmax_cross_entropy(labels, output)
    return sparse_categorical_crossentropy_from_probs(labels, output)

"""Connectionist Temporal Classification: :func:`ctc_loss` (the forward-backward recursion
in log space, vectorized over the batch, with its hand-written gradient) and the greedy
:func:`ctc_decode`, as ``keras.ops.ctc_loss`` / ``keras.ops.ctc_decode``.

Notation: a target of length ``L`` becomes the extended sequence of ``S = 2 * L + 1``
states ``blank, l1, blank, l2, ..., lL, blank``; ``alpha[t, s]`` is the log-probability
of the prefixes that are in state ``s`` after emitting frame ``t``, ``beta[t, s]`` that of
the suffixes that complete the target from state ``s`` at frame ``t`` (frame ``t``'s
emission excluded), so ``alpha + beta`` is the log-probability of all the alignments
passing through ``(t, s)``."""

import numpy as np

from .. import state
from .core import constant, data_of, index_data, record


def _as_vector(name, value, batch):
    """An integer op argument as a (batch,) int64 engine array, else ``ValueError``."""
    array = index_data(value)
    if array.dtype.kind not in "iu" or array.shape != (batch,):
        raise ValueError(f"ctc_loss: {name} must be integers of shape ({batch},), got an "
                         f"array of dtype {array.dtype} and shape {tuple(array.shape)}")
    return array.astype("int64")


def _check_inputs(labels, logits, target_length, output_length):
    """The checked integer arguments: labels (B, L), target/output lengths (B,)."""
    if logits.ndim != 3:
        raise ValueError(f"ctc_loss: output must be logits of shape (batch_size, "
                         f"max_length, num_classes), got shape {tuple(logits.shape)}")
    batch, frames, classes = logits.shape
    if frames == 0 or classes == 0:
        raise ValueError(f"ctc_loss: output needs at least one frame and one class, got "
                         f"shape {tuple(logits.shape)}")
    if labels.ndim != 2 or labels.shape[0] != batch or labels.dtype.kind not in "iu":
        raise ValueError(f"ctc_loss: target must be integers of shape ({batch}, "
                         f"max_label_length), got an array of dtype {labels.dtype} and "
                         f"shape {tuple(labels.shape)}")
    target_length = _as_vector("target_length", target_length, batch)
    output_length = _as_vector("output_length", output_length, batch)
    for name, lengths, most in (("target_length", target_length, labels.shape[1]),
                                ("output_length", output_length, frames)):
        if batch and (int(lengths.min()) < 0 or int(lengths.max()) > most):
            raise ValueError(f"ctc_loss: {name} must lie in [0, {most}], got values from "
                             f"{int(lengths.min())} to {int(lengths.max())}")
    return target_length, output_length


def _shifted(x, by, xp):
    """``x`` moved ``by`` states to the right along the last axis, ``-inf`` shifted in
    (``by < 0``: to the left)."""
    pad = xp.full(x.shape[:-1] + (abs(by),), -np.inf, dtype=x.dtype)
    if by > 0:
        return xp.concatenate([pad, x[..., :-by]], axis=-1)
    return xp.concatenate([x[..., -by:], pad], axis=-1)


def _logaddexp3(a, b, c, xp):
    """``log(exp(a) + exp(b) + exp(c))``, elementwise."""
    return xp.logaddexp(xp.logaddexp(a, b), c)


def _forward_backward(log_probs, states, skip, target_length, output_length, xp):
    """``(alpha, beta, log_likelihood)``: alpha and beta (T, B, S), the log-likelihood (B,)."""
    batch, frames, _ = log_probs.shape
    emit = xp.take_along_axis(log_probs, xp.broadcast_to(
        states[:, None, :], (batch, frames, states.shape[1])), axis=-1)   # (B, T, S)
    emit = emit.transpose(1, 0, 2)                                          # (T, B, S)
    no_skip = xp.where(skip, 0.0, -np.inf).astype(emit.dtype)
    width = states.shape[1]
    start = xp.full((batch, width), -np.inf, dtype=emit.dtype)
    start[:, 0] = 0.0                        # before frame 0: in the first blank state
    previous, alphas = start, []
    for t in range(frames):
        previous = _logaddexp3(previous, _shifted(previous, 1, xp),
                               _shifted(previous, 2, xp) + no_skip, xp) + emit[t]
        alphas.append(previous)
    rows, last = xp.arange(batch), 2 * target_length
    alphas = xp.stack([start] + alphas)          # alphas[t + 1]: after frame t
    ends = alphas[output_length, rows]
    before_last = xp.where(target_length > 0, ends[rows, xp.maximum(last - 1, 0)], -np.inf)
    log_likelihood = xp.logaddexp(ends[rows, last], before_last)
    index = xp.arange(width)[None, :]
    final = xp.where((index == last[:, None]) | ((index == last[:, None] - 1)
                                                 & (target_length[:, None] > 0)),
                     0.0, -np.inf).astype(emit.dtype)
    betas = [None] * frames
    following = final
    skip_from = _shifted(no_skip, -2, xp)
    for t in range(frames - 1, -1, -1):
        if t < frames - 1:
            nxt = following + emit[t + 1]
            following = _logaddexp3(nxt, _shifted(nxt, -1, xp),
                                    _shifted(nxt, -2, xp) + skip_from, xp)
        following = xp.where((output_length == t + 1)[:, None], final, following)
        following = xp.where((output_length <= t)[:, None], -np.inf, following)
        betas[t] = following
    return alphas[1:], xp.stack(betas), log_likelihood


def ctc_loss(target, output, target_length, output_length, mask_index=0):
    """CTC loss per sample, as ``keras.ops.ctc_loss``: the negative log-likelihood of the
    ``target`` label sequences under the frame-wise ``softmax(output)``.

    Args:
        target: integer labels, shape (batch_size, max_label_length); entries past a
            sample's ``target_length`` are ignored.
        output: logits (not normalized), shape (batch_size, max_length, num_classes);
            ``log_softmax`` is applied inside.
        target_length: integers (batch_size,), each label sequence's length.
        output_length: integers (batch_size,), each sample's number of valid frames.
        mask_index: the class index of the blank. Defaults to 0.

    Returns:
        The losses, shape (batch_size,), float32 for float32 (or narrower) logits, float64
        for float64. A target no alignment can produce (too long for its frames) gives
        ``inf`` (as Keras' torch and TensorFlow backends) and a zero gradient. The gradient
        with respect to ``output`` is ``softmax(output) - posterior`` on the valid frames.
    """
    backend = state.backend()
    xp = backend.xp
    logits = data_of(output)
    if logits.dtype.kind != "f" or logits.dtype.itemsize < 4:
        logits = logits.astype("float32")
    labels = index_data(target)
    target_length, output_length = _check_inputs(labels, logits, target_length,
                                                 output_length)
    batch, frames, classes = logits.shape
    if not 0 <= int(mask_index) < classes:
        raise ValueError(f"ctc_loss: mask_index must lie in [0, {classes}), got {mask_index}")
    positions = xp.arange(labels.shape[1])
    labels = xp.where(positions[None, :] < target_length[:, None], labels.astype("int64"),
                      int(mask_index))
    if labels.size and (int(labels.min()) < 0 or int(labels.max()) >= classes):
        raise ValueError(f"ctc_loss: target labels must lie in [0, {classes}) for "
                         f"{classes} classes, got values from {int(labels.min())} to "
                         f"{int(labels.max())}")
    states = xp.full((batch, 2 * labels.shape[1] + 1), int(mask_index), dtype="int64")
    states[:, 1::2] = labels
    skip = xp.zeros(states.shape, dtype=bool)
    skip[:, 3::2] = labels[:, 1:] != labels[:, :-1]
    log_probs = backend.log_softmax(logits, axis=-1)
    alpha, beta, log_likelihood = _forward_backward(log_probs, states, skip, target_length,
                                                    output_length, xp)
    losses = -log_likelihood

    def backward(g, needs):
        possible = xp.isfinite(log_likelihood)
        scale = xp.where(possible, g, 0.0).astype(logits.dtype)
        shift = xp.where(possible, log_likelihood, 0.0)
        posterior = xp.exp(alpha + beta - shift[None, :, None]).transpose(1, 0, 2)
        one_hot = (states[:, :, None] == xp.arange(classes)).astype(logits.dtype)
        occupancy = xp.einsum("bts,bsk->btk", posterior, one_hot)           # (B, T, K)
        valid = (xp.arange(frames)[None, :] < output_length[:, None]).astype(logits.dtype)
        grad = xp.exp(log_probs) * valid[:, :, None] - occupancy
        grad *= scale[:, None, None]
        return None, grad.astype(data_of(output).dtype, copy=False), None, None

    return record(losses, (target, output, target_length, output_length), backward,
                  "ctc_loss")


def ctc_decode(inputs, sequence_lengths, strategy="greedy", beam_width=100, top_paths=1,
               merge_repeated=True, mask_index=0):
    """Decode CTC outputs, as ``keras.ops.ctc_decode`` (``strategy="greedy"`` only).

    Args:
        inputs: logits, shape (batch_size, max_length, num_classes).
        sequence_lengths: integers (batch_size,), each sample's number of valid frames.
        strategy: ``"greedy"`` (``"beam_search"`` is not implemented and raises
            ``NotImplementedError``).
        beam_width, top_paths: beam search's arguments (Keras' signature).
        merge_repeated: merge repeated labels of consecutive frames. Defaults to True.
        mask_index: the class index of the blank. Defaults to 0.

    Returns:
        ``(decoded, scores)``: the decoded labels, int32 of shape (1, batch_size,
        max_length), left-aligned and padded with ``-1``; and the negated sum of each
        sequence's best logits, shape (batch_size, 1).
    """
    if strategy == "beam_search":
        raise NotImplementedError("ctc_decode: strategy='beam_search' is not implemented "
                                  "in lamina; use strategy='greedy'")
    if strategy != "greedy":
        raise ValueError(f"ctc_decode: invalid strategy {strategy!r}; supported values are "
                         "'greedy' and 'beam_search'")
    xp = state.backend().xp
    logits = data_of(inputs)
    if logits.dtype.kind != "f" or logits.dtype.itemsize < 4:
        logits = logits.astype("float32")
    if logits.ndim != 3:
        raise ValueError(f"ctc_decode: inputs must have shape (batch_size, max_length, "
                         f"num_classes), got shape {tuple(logits.shape)}")
    batch, frames, _ = logits.shape
    lengths = index_data(sequence_lengths).astype("int64").reshape(batch)
    beyond = xp.arange(frames)[None, :] >= lengths[:, None]
    indices = xp.where(beyond, int(mask_index), logits.argmax(axis=-1))
    scores = xp.where(beyond, 0.0, logits.max(axis=-1)).astype(logits.dtype)
    if merge_repeated and frames:
        repeat = xp.zeros(indices.shape, dtype=bool)
        repeat[:, 1:] = indices[:, 1:] == indices[:, :-1]
        indices = xp.where(repeat, int(mask_index), indices)
    blank = indices == int(mask_index)
    order = xp.argsort(xp.where(blank, frames, xp.arange(frames)[None, :]), axis=-1,
                       kind="stable")
    decoded = xp.take_along_axis(xp.where(blank, -1, indices), order, axis=-1)
    return (constant(decoded.astype("int32")[None], "ctc_decode"),
            constant(-scores.sum(axis=1, keepdims=True), "ctc_decode"))

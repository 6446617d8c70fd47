"""The core of multi-head attention as ONE op with a hand-written backward:
``dropout(softmax(mask(q k^T * scale))) v`` for every (sample, head) at once.

As separate ops the core was a dozen recorded steps per layer (the scaling, two transposes
and their copies, the matmul, the mask's bias and product, the softmax, the dropout, the
second matmul, the transpose back), and NumPy ran each stacked matmul as one small
single-threaded GEMM per (sample, head). This op reads the projected ``(batch, length,
heads, depth)`` arrays in place (the GEMMs take the head-major views directly, no copies),
and runs the batch as row blocks (:meth:`lamina.backends.Backend.batch_blocks`; on threads
on the NumPy engine, one block on the GPU), each block one stacked GEMM, the engine's
softmax (compiled on the NumPy engine) and the second stacked GEMM written straight into
the ``(batch, length, heads, depth)`` result. The backward runs the same blocks: four
stacked GEMMs and the engine's softmax backward. Where the engine has compiled kernels
for the whole core (:meth:`lamina.backends.Backend.attention_core_kernels`: the NumPy
engine, float32 and float64), each block is instead ONE kernel call that runs every
(sample, head) slice through BLAS with the scaling, mask, softmax and dropout done on the
slice while it is in cache (no scaled copy of q, no passes over the whole array).

Masking as :class:`lamina.layers.MultiHeadAttention` defines it: masked scores become
-1e9 before the softmax and the probabilities are multiplied by the mask, so a fully masked
row attends to nothing. Dropout draws one uniform array of the probabilities' shape from
``generator`` after the softmax, as :func:`lamina.ops.dropout` does, so a seeded layer
drops the same entries either way.

Self-attention (query, key and value projected from one tensor) can pass the three
projections as ONE packed ``(batch, length, heads * (2 depth + value_depth))`` array
(:func:`packed_attention_core`), made by :func:`packed_projection`: one GEMM for all
three projections forward and one for each of their input and kernel gradients; the core
writes the three gradients into one packed array (views, no concatenation).

Example:
    >>> context = attention_core(q, k, v, scale=1 / math.sqrt(32), keep=mask)
"""

from .. import replica, state
from .activation_kernels import dense_epilogue, dense_epilogue_backward
from .core import data_of, record

_LARGE_NEGATIVE = -1e9


def attention_core(query, key, value, scale, keep=None, dropout=0.0, generator=None):
    """``dropout(masked_softmax(q k^T * scale)) v`` per sample and head.

    Args:
        query: (batch, target, heads, depth).
        key: (batch, source, heads, depth).
        value: (batch, source, heads, value_depth).
        scale: the factor of the scores (``1 / sqrt(depth)`` in Keras' layer).
        keep: boolean engine array broadcastable to (batch, target, source), True where a
            query position may attend to a key position, or None.
        dropout: rate in [0, 1) of the dropout on the probabilities (0: none).
        generator: the engine generator the dropout draws from (needed when dropout > 0).

    Returns:
        The context, a Tensor of shape (batch, target, heads, value_depth), differentiable
        in query, key and value.
    """
    q, k, v = data_of(query), data_of(key), data_of(value)
    if q.ndim != 4 or k.ndim != 4 or v.ndim != 4 or k.shape[:3] != v.shape[:3] \
            or q.shape[0] != k.shape[0] or q.shape[2:] != k.shape[2:]:
        raise ValueError(f"attention_core expects query (batch, target, heads, depth), key "
                         f"(batch, source, heads, depth) and value (batch, source, heads, "
                         f"value_depth), got shapes {q.shape}, {k.shape}, {v.shape}")
    context, backward_into = _core(q, k, v, scale, keep, dropout, generator)
    numpy_like = state.backend().xp

    def backward(g, needs):
        grads = [numpy_like.empty(a.shape, a.dtype) if need else None
                 for a, need in zip((q, k, v), needs)]
        backward_into(g, grads)
        return tuple(grads)

    return record(context, (query, key, value), backward, "attention_core")


def packed_attention_core(packed, heads, depth, value_depth, scale, keep=None, dropout=0.0,
                          generator=None):
    """:func:`attention_core` of self-attention, from one packed projection.

    Args:
        packed: (batch, length, heads * (2 depth + value_depth)): the query, key and value
            projections side by side on the last axis, each head-major
            (``heads * depth`` = ``(heads, depth)`` flattened).
        heads, depth, value_depth: the head count and the sizes of each head.
        scale, keep, dropout, generator: as :func:`attention_core`.

    Returns:
        The context (batch, length, heads, value_depth), differentiable in ``packed``.
    """
    p = data_of(packed)
    if p.ndim != 3 or p.shape[2] != heads * (2 * depth + value_depth):
        raise ValueError(f"packed_attention_core expects packed (batch, length, "
                         f"{heads * (2 * depth + value_depth)}) for {heads} heads of depth "
                         f"{depth} and value depth {value_depth}, got shape {p.shape}")
    context, backward_into = _core(*_unpack(p, heads, depth, value_depth), scale, keep,
                                   dropout, generator)
    numpy_like = state.backend().xp

    def backward(g, needs):
        grad = numpy_like.empty(p.shape, p.dtype)
        backward_into(g, list(_unpack(grad, heads, depth, value_depth)))
        return (grad,)

    return record(context, (packed,), backward, "packed_attention_core")


def packed_projection(x, kernels, biases=None):
    """``x @ concatenate(kernels, axis=1) + concatenate(biases)`` as ONE GEMM: the packed
    query/key/value projection of self-attention.

    Args:
        x: (..., in).
        kernels: 2-D tensors (in, out_i), joined for this call only.
        biases: None or one (out_i,) tensor per kernel.

    Returns:
        (..., sum(out_i)), differentiable in x, each kernel and each bias. The backward
        is one GEMM for x's gradient and one for all the kernels' (each kernel gets its
        C-contiguous block of it, as the compiled optimizers want).
    """
    backend = state.backend()
    numpy_like = backend.xp
    a = data_of(x)
    weights = [data_of(k) for k in kernels]
    if any(w.ndim != 2 or w.shape[0] != a.shape[-1] for w in weights) or (
            biases is not None and len(biases) != len(weights)):
        raise ValueError(f"packed_projection expects 2-D kernels ({a.shape[-1]}, out) and "
                         f"one bias per kernel, got kernels of shapes "
                         f"{[w.shape for w in weights]} for input of shape {a.shape}")
    joined = numpy_like.concatenate(weights, axis=1)
    bias = None if biases is None else numpy_like.concatenate([data_of(b) for b in biases])
    out, _ = dense_epilogue(backend, backend.linear(a, joined), bias, "linear")
    bounds = [0]
    for w in weights:
        bounds.append(bounds[-1] + w.shape[1])

    def backward(g, needs):
        count = len(weights)
        g2, summed = dense_epilogue_backward(backend, g, None, "linear",
                                             biases is not None and any(needs[1 + count:]))
        grads = [backend.linear(g2, joined.T).reshape(a.shape) if needs[0] else None]
        if any(needs[1:1 + count]):
            whole = backend.linear(a.reshape(-1, a.shape[-1]).T, g2)
            grads += [numpy_like.ascontiguousarray(whole[:, start:stop]) if need else None
                      for start, stop, need in zip(bounds, bounds[1:], needs[1:1 + count])]
        else:
            grads += [None] * count
        if biases is not None:
            grads += [summed[start:stop] if need else None
                      for start, stop, need in zip(bounds, bounds[1:], needs[1 + count:])]
        return tuple(grads)

    inputs = (x, *kernels) + (() if biases is None else tuple(biases))
    return record(out, inputs, backward, "packed_projection")


def _unpack(packed, heads, depth, value_depth):
    """The (batch, length, heads, size) views of query, key and value in ``packed``."""
    batch, length = packed.shape[:2]
    bounds = (0, heads * depth, 2 * heads * depth, heads * (2 * depth + value_depth))
    return tuple(packed[:, :, start:stop].reshape(batch, length, heads, size)
                 for start, stop, size in zip(bounds[:-1], bounds[1:],
                                              (depth, depth, value_depth)))


def _core(q, k, v, scale, keep, dropout, generator):
    """The forward on engine arrays: the context and ``backward_into(g, grads)``, which
    writes the gradients of q, k and v into the arrays ``grads`` (None: not needed)."""
    if not 0.0 <= dropout < 1.0:
        raise ValueError(f"attention_core needs dropout in [0, 1), got {dropout!r}")
    backend = state.backend()
    numpy_like = backend.xp
    batch, target, heads, _ = q.shape
    dtype = q.dtype
    probabilities = numpy_like.empty((batch, heads, target, k.shape[1]), dtype)
    draws = None
    if dropout > 0.0:
        # data-parallel training: the global batch's draw, this share's rows of it
        draws = replica.draw_rows(
            lambda shape: backend.random_uniform(generator, shape, dtype), probabilities.shape)
    context = numpy_like.empty((batch, target, heads, v.shape[3]), dtype)
    blocks = backend.batch_blocks(batch, probabilities.size)
    kernels = _kernels(backend, q, k, v)
    arguments = (backend, q, k, v, dtype.type(scale), keep, dropout, draws, probabilities,
                 context, blocks)
    if kernels is not None:
        return context, _compiled(kernels, *arguments)
    return context, _array_calls(*arguments)


def _kernels(backend, q, k, v):
    """The engine's compiled kernels for these arrays, or None (another engine or dtype,
    mixed dtypes, an empty axis)."""
    if not (q.dtype == k.dtype == v.dtype) or 0 in q.shape or 0 in k.shape or \
            0 in v.shape:
        return None
    return backend.attention_core_kernels(q.dtype)


def _for_blas(a):
    """``a``, or a C-contiguous copy when its rows are not what the kernels' GEMMs read
    (a contiguous last axis, a positive row stride of at least a row)."""
    item = a.itemsize
    if a.strides[3] == item and a.strides[1] % item == 0 and a.strides[1] >= a.shape[3] * item:
        return a
    return a.copy()


def _compiled(kernels, backend, q, k, v, scale, keep, dropout, draws, probabilities,
              context, blocks):
    """The forward through :meth:`~lamina.backends.Backend.attention_core_kernels`, one
    kernel call per row block; returns ``backward_into``."""
    numpy_like = backend.xp
    forward, backward = kernels
    dtype = q.dtype
    q, k, v = (_for_blas(a) for a in (q, k, v))
    batch, target, source = q.shape[0], q.shape[1], k.shape[1]
    kept = numpy_like.zeros((0, 0, 0), bool) if keep is None else \
        numpy_like.broadcast_to(keep, (batch, target, source))
    if draws is None:
        draws = numpy_like.zeros((0, 0, 0, 0), dtype)
    attended = probabilities if dropout == 0.0 else numpy_like.empty_like(probabilities)
    rate, inverse = dtype.type(dropout), dtype.type(1.0 / (1.0 - dropout))
    backend.run_blocks(lambda rows: forward(q, k, v, scale, kept, draws, rate, inverse,
                                            rows.start, rows.stop, probabilities, attended,
                                            context), blocks)

    def backward_into(g, grads):
        g = _for_blas(g)
        none = numpy_like.zeros((0, 0, 0, 0), dtype)
        dq, dk, dv = (none if a is None else a for a in grads)
        backend.run_blocks(lambda rows: backward(g, q, k, v, scale, probabilities, attended,
                                                 draws, rate, inverse, rows.start,
                                                 rows.stop, dq, dk, dv), blocks)

    return backward_into


def _array_calls(backend, q, k, v, scale, keep, dropout, draws, probabilities, context,
                 blocks):
    """The forward as stacked matmuls and the engine's softmax per row block; returns
    ``backward_into``."""
    numpy_like = backend.xp
    dtype = q.dtype
    scaled_q = q * scale
    q_heads, k_heads_t = scaled_q.transpose(0, 2, 1, 3), k.transpose(0, 2, 3, 1)
    v_heads = v.transpose(0, 2, 1, 3)
    kept = None
    if keep is not None:
        kept = numpy_like.broadcast_to(keep, (q.shape[0], q.shape[1], k.shape[1]))[:, None]
    scaled_drop = None
    if draws is not None:
        scaled_drop = (draws >= dropout).astype(dtype) * dtype.type(1.0 / (1.0 - dropout))
    attended = probabilities if scaled_drop is None else numpy_like.empty_like(probabilities)
    context_heads = context.transpose(0, 2, 1, 3)

    def forward(rows):
        scores = numpy_like.matmul(q_heads[rows], k_heads_t[rows], out=probabilities[rows])
        if kept is not None:
            numpy_like.copyto(scores, _LARGE_NEGATIVE, where=~kept[rows])
        backend.softmax(scores, axis=-1, out=scores)
        if kept is not None:
            scores *= kept[rows]
        if scaled_drop is not None:
            numpy_like.multiply(scores, scaled_drop[rows], out=attended[rows])
        numpy_like.matmul(attended[rows], v_heads[rows], out=context_heads[rows])

    backend.run_blocks(forward, blocks)

    def backward_into(g, grads):
        g_heads = numpy_like.ascontiguousarray(g).transpose(0, 2, 1, 3)
        needs = [a is not None for a in grads]
        grad_heads = [None if a is None else a.transpose(0, 2, 1, 3) for a in grads]

        def work(rows):
            d_attended = numpy_like.matmul(g_heads[rows], v_heads[rows].swapaxes(-1, -2))
            if needs[2]:
                numpy_like.matmul(attended[rows].swapaxes(-1, -2), g_heads[rows],
                                  out=grad_heads[2][rows])
            if not (needs[0] or needs[1]):
                return
            if scaled_drop is not None:
                d_attended *= scaled_drop[rows]
            # Masked probabilities are 0, so the softmax backward from them gives 0 there
            # and leaves the masked entries out of each row's sum, as the mask requires.
            d_scores = backend.softmax_backward(d_attended, probabilities[rows], axis=-1)
            if needs[0]:
                out = numpy_like.matmul(d_scores, k_heads_t[rows].swapaxes(-1, -2),
                                        out=grad_heads[0][rows])
                out *= scale
            if needs[1]:
                numpy_like.matmul(d_scores.swapaxes(-1, -2), q_heads[rows],
                                  out=grad_heads[1][rows])

        backend.run_blocks(work, blocks)

    return backward_into

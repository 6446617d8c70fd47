"""The fused attention core (``backends/ops/attention_core.py``): finite-difference
gradients on every engine (with and without a mask), the same numbers and gradients as the
array-call composition MultiHeadAttention used before (masked, fully masked rows, seeded
dropout), the packed self-attention form against the separate one, and bad input."""

import math

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.backends.ops.attention_core import (attention_core, packed_attention_core,
                                               packed_projection)

RNG = np.random.default_rng(7)


def composed(q, k, v, scale, keep=None, dropout=0.0, generator=None):
    """The array-call path: transposes, matmuls, the mask's bias and product, softmax,
    ops.dropout."""
    qh, kh, vh = (ops.transpose(a, (0, 2, 1, 3)) for a in (q, k, v))
    scores = ops.matmul(ops.multiply(qh, scale), ops.transpose(kh, (0, 1, 3, 2)))
    if keep is None:
        probabilities = ops.softmax(scores, axis=-1)
    else:
        keep_float = keep[:, None].astype(scores.dtype)
        probabilities = ops.multiply(
            ops.softmax(ops.add(scores, (1 - keep_float) * -1e9), axis=-1), keep_float)
    if dropout:
        probabilities = ops.dropout(probabilities, dropout, generator)
    return ops.transpose(ops.matmul(probabilities, vh), (0, 2, 1, 3))


def arrays(batch=3, target=5, source=6, heads=2, depth=4, value_depth=3, dtype="float32"):
    return [RNG.standard_normal(s).astype(dtype) for s in
            ((batch, target, heads, depth), (batch, source, heads, depth),
             (batch, source, heads, value_depth))]


def results(fn, inputs, **kwargs):
    tensors = [lamina.Tensor(a, requires_grad=True) for a in inputs]
    out = fn(*tensors, **kwargs)
    r = np.random.default_rng(1).standard_normal(out.shape).astype(out.dtype)
    return [out.numpy()] + [np.asarray(g) for g in
                            lamina.grad(ops.sum(ops.multiply(out, r)), tensors)]


@pytest.mark.parametrize("masked", [False, True])
def test_gradients(check_op, masked):
    keep = RNG.random((2, 3, 4)) > 0.3 if masked else None
    inputs = arrays(batch=2, target=3, source=4, heads=2, depth=2, value_depth=3,
                    dtype="float64")
    check_op(lambda q, k, v: attention_core(q, k, v, 0.7, keep), inputs,
             reference=lambda q, k, v: composed(q, k, v, 0.7, keep).numpy())


def test_matches_the_array_calls_with_a_mask(engine):
    inputs = arrays()
    keep = RNG.random((3, 5, 6)) > 0.4
    keep[1, 2] = False                            # a fully masked row attends to nothing
    got = results(attention_core, inputs, scale=0.5, keep=keep)
    want = results(composed, inputs, scale=0.5, keep=keep)
    for a, b in zip(got, want):
        assert a.dtype == np.float32
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=2e-6)
    np.testing.assert_array_equal(got[0][1, 2], 0.0)


def test_seeded_dropout_drops_what_ops_dropout_drops(engine):
    inputs = arrays()
    backend = lamina.backends.get_backend()
    got = results(attention_core, inputs, scale=0.5, dropout=0.3,
                  generator=backend.make_generator(11))
    want = results(composed, inputs, scale=0.5, dropout=0.3,
                   generator=backend.make_generator(11))
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=2e-6)


@pytest.mark.parametrize("training", [False, True])
def test_multi_head_attention_matches_its_scores_path(engine, training):
    """The layer's fused path (no scores returned) and its composed path
    (``return_attention_scores=True``) give the same output; with dropout from the same
    seed too."""
    x = RNG.standard_normal((4, 7, 16)).astype("float32")
    mask = RNG.random((4, 7, 7)) > 0.2
    outputs = []
    for fused in (True, False):
        lamina.utils.set_random_seed(3)
        layer = layers.MultiHeadAttention(num_heads=2, key_dim=8, dropout=0.25, seed=5)
        out = layer(x, x, attention_mask=mask, training=training,
                    return_attention_scores=not fused)
        outputs.append((out if fused else out[0]).numpy())
    np.testing.assert_allclose(outputs[0], outputs[1], rtol=1e-5, atol=2e-6)


def unpacked(packed, heads, depth, value_depth):
    """The query, key and value of a packed (batch, length, heads * sizes) tensor."""
    batch, length = packed.shape[:2]
    bounds = np.cumsum([0, heads * depth, heads * depth, heads * value_depth])
    return [ops.reshape(packed[:, :, int(a):int(b)], (batch, length, heads, size))
            for a, b, size in zip(bounds[:-1], bounds[1:], (depth, depth, value_depth))]


@pytest.mark.parametrize("masked", [False, True])
def test_packed_gradients(check_op, masked):
    keep = RNG.random((2, 4, 4)) > 0.3 if masked else None
    packed = RNG.standard_normal((2, 4, 2 * (2 + 2 + 3)))

    def op(p):
        return packed_attention_core(p, 2, 2, 3, 0.7, keep)

    check_op(op, [packed], reference=lambda p: composed(
        *unpacked(lamina.Tensor(p), 2, 2, 3), 0.7, keep).numpy())


@pytest.mark.parametrize("dropout", [0.0, 0.3])
def test_packed_matches_the_separate_projections(engine, dropout):
    packed = RNG.standard_normal((3, 6, 2 * (4 + 4 + 3))).astype("float32")
    keep = RNG.random((3, 6, 6)) > 0.4
    backend = lamina.backends.get_backend()

    def separate(p, **kwargs):
        return attention_core(*unpacked(p, 2, 4, 3), **kwargs)

    got, want = (results(fn, [packed], scale=0.5, keep=keep, dropout=dropout,
                         generator=backend.make_generator(11))
                 for fn in (lambda p, **kw: packed_attention_core(p, 2, 4, 3, **kw), separate))
    for a, b in zip(got, want):
        assert a.dtype == np.float32
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=2e-6)


@pytest.mark.parametrize("use_bias", [True, False])
def test_packed_projection_gradients(check_op, use_bias):
    x = RNG.standard_normal((2, 3, 4))
    kernels = [RNG.standard_normal((4, n)) for n in (2, 2, 3)]
    biases = [RNG.standard_normal(n) for n in (2, 2, 3)] if use_bias else []

    def op(x, *weights):
        return packed_projection(x, weights[:3], weights[3:] or None)

    def reference(x, *weights):
        out = x @ np.concatenate(weights[:3], axis=1)
        return out + np.concatenate(weights[3:]) if weights[3:] else out

    check_op(op, [x, *kernels, *biases], reference=reference)


def test_packed_projection_gives_contiguous_kernel_gradients(engine):
    x = lamina.Tensor(RNG.standard_normal((5, 4)).astype("float32"))
    kernels = [lamina.Tensor(RNG.standard_normal((4, 3)).astype("float32"),
                             requires_grad=True) for _ in range(3)]
    grads = lamina.grad(ops.sum(ops.square(packed_projection(x, kernels))), kernels)
    assert all(g.data.flags.c_contiguous for g in grads)


def test_self_attention_gradients_match_the_separate_path(engine):
    """``mha(x, x)`` (one packed projection GEMM) and ``mha(x, copy_of_x)`` (three
    projections) give the same output and the same gradients of every weight and of x."""
    x = RNG.standard_normal((3, 5, 8)).astype("float32")
    layer = layers.MultiHeadAttention(num_heads=2, key_dim=3, value_dim=2)
    layer(x, x)
    outputs = []
    for packed in (True, False):
        query = lamina.Tensor(x, requires_grad=True)
        value = query if packed else lamina.Tensor(x, requires_grad=True)
        out = layer(query, value)
        sources = list(layer.trainable_weights) + [query] + ([] if packed else [value])
        grads = [np.asarray(g) for g in lamina.grad(ops.sum(ops.square(out)), sources)]
        if not packed:                    # x's gradient: through the query and the value
            grads = grads[:-2] + [grads[-2] + grads[-1]]
        outputs.append([out.numpy()] + grads)
    for a, b in zip(*outputs):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_bad_input(engine):
    q, k, v = arrays()
    with pytest.raises(ValueError, match="attention_core expects"):
        attention_core(q[0], k, v, 1.0)
    with pytest.raises(ValueError, match="dropout in"):
        attention_core(q, k, v, 1.0 / math.sqrt(4), dropout=1.0)
    with pytest.raises(ValueError, match="packed_attention_core expects"):
        packed_attention_core(RNG.standard_normal((2, 3, 10)), 2, 2, 2, 1.0)
    with pytest.raises(ValueError, match="packed_projection expects"):
        packed_projection(RNG.standard_normal((2, 3)), [RNG.standard_normal((4, 2))])

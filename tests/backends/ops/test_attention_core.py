"""The fused attention core (``backends/ops/attention_core.py``): finite-difference
gradients on every engine (with and without a mask), the same numbers and gradients as the
array-call composition MultiHeadAttention used before (masked, fully masked rows, seeded
dropout), and bad input."""

import math

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.backends.ops.attention_core import attention_core

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


def test_bad_input(engine):
    q, k, v = arrays()
    with pytest.raises(ValueError, match="attention_core expects"):
        attention_core(q[0], k, v, 1.0)
    with pytest.raises(ValueError, match="dropout in"):
        attention_core(q, k, v, 1.0 / math.sqrt(4), dropout=1.0)

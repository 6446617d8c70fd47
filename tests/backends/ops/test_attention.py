"""``keras.ops.dot_product_attention`` (``backends/ops/attention.py``): Keras 3.15's numbers
with a mask and causally, and finite-difference gradients of query, key, value and bias on
every engine."""

import numpy as np
import pytest

from lamina import ops

RNG = np.random.default_rng(0)
Q = RNG.standard_normal((2, 3, 2, 4)).astype("float32")
K = RNG.standard_normal((2, 5, 2, 4)).astype("float32")
V = RNG.standard_normal((2, 5, 2, 4)).astype("float32")
MASK = RNG.random((2, 1, 3, 5)) > 0.3
# Produced with Keras 3.15.1 (torch backend) from the arrays above (same generator calls):
#   keras.ops.dot_product_attention(q, k, v, mask=mask)[0, :, 0, :]
#   keras.ops.dot_product_attention(q, k[:, :3], v[:, :3], is_causal=True, scale=0.3)[1, :, 1]
MASKED = [[-0.20248, -0.52695, -0.90535, -0.50746], [0.72939, 0.28165, -2.01875, 0.57757],
          [0.25475, -0.20289, -1.64246, -0.17753]]
CAUSAL = [[0.91665, 0.37095, 0.61319, -0.15219], [0.67492, 0.06611, 0.61317, -0.16257],
          [0.63924, -0.00603, 0.0891, -0.39593]]


def test_keras_numbers(engine):
    out = ops.dot_product_attention(Q, K, V, mask=MASK)
    assert out.shape == (2, 3, 2, 4) and out.dtype == np.float32
    np.testing.assert_allclose(out.numpy()[0, :, 0, :], MASKED, atol=2e-5)
    out = ops.nn.dot_product_attention(Q, K[:, :3], V[:, :3], is_causal=True, scale=0.3)
    np.testing.assert_allclose(out.numpy()[1, :, 1, :], CAUSAL, atol=2e-5)


def test_gradients(check_op):
    rng = np.random.default_rng(1)
    shapes = [(1, 3, 2, 2), (1, 4, 2, 2), (1, 4, 2, 2), (1, 2, 3, 4)]
    check_op(lambda q, k, v, b: ops.dot_product_attention(q, k, v, bias=b, mask=MASK[:1, :, :, :4],
                                                          attn_logits_soft_cap=2.0),
             [rng.standard_normal(s) for s in shapes])


def test_bad_input(engine):
    with pytest.raises(ValueError, match="4-d"):
        ops.dot_product_attention(Q[0], K[0], V[0])
    with pytest.raises(ValueError, match="flash"):
        ops.dot_product_attention(Q, K, V, flash_attention=True)

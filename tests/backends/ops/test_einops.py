"""``rearrange`` (``backends/ops/einops.py``) against Keras 3.15 outputs
(``KERAS_BACKEND=torch /work/kvenv/bin/python``, inline below), its gradient on every
engine, and bad patterns.

Reference snippet::

    x = np.arange(2 * 4 * 6 * 3, dtype="float32").reshape(2, 4, 6, 3)
    y = keras.ops.rearrange(x, pattern, **lengths); print(y.shape, y.ravel()[[1, 7, 33, 100]])
"""

import numpy as np
import pytest

from lamina import ops

X = np.arange(2 * 4 * 6 * 3, dtype="float32").reshape(2, 4, 6, 3)
KERAS = [  # (pattern, axes_lengths, shape, values at flat positions 1, 7, 33, 100)
    ("b h w c -> b c h w", {}, (2, 3, 4, 6), [3.0, 21.0, 28.0, 85.0]),
    ("b h w c -> (b h) w c", {}, (8, 6, 3), [1.0, 7.0, 33.0, 100.0]),
    ("b (h1 h) (w1 w) c -> (b h1 w1) h w c", dict(h1=2, w1=3), (12, 2, 2, 3),
     [1.0, 19.0, 33.0, 88.0]),
    ("b (h h1) (w w1) c -> b h w (c h1 w1)", dict(h1=2, w1=2), (2, 2, 3, 12),
     [3.0, 22.0, 17.0, 85.0]),
]


@pytest.mark.parametrize("pattern,lengths,shape,values", KERAS, ids=[k[0] for k in KERAS])
def test_matches_keras(pattern, lengths, shape, values):
    out = ops.rearrange(X, pattern, **lengths).numpy()
    assert out.shape == shape
    assert out.ravel()[[1, 7, 33, 100]].tolist() == values


def test_gradient(check_op):
    check_op(lambda x: ops.rearrange(x, "b (h h1) w -> b h (w h1)", h1=2),
             [np.random.default_rng(2).normal(size=(2, 4, 3))],
             reference=lambda x: x.reshape(2, 2, 2, 3).transpose(0, 1, 3, 2).reshape(2, 2, 6))


BAD = [  # (pattern, axes_lengths, message)
    ("b h w c", {}, "inputs -> outputs"),
    ("b h w c d -> b c h w d", {}, "5 input axes"),
    ("b h w c -> b h w", {}, "same axes"),
    ("b (h1 h) w c -> b h1 h w c", {"h1": 3}, "cannot split"),
    ("b (h1 h) w c -> b h1 h w c", {}, "cannot split"),
    ("b h h c -> b h c", {}, "twice"),
    ("b (h w c -> b h w c", {}, "parentheses"),
]


@pytest.mark.parametrize("pattern,lengths,message", BAD, ids=[b[0] for b in BAD])
def test_bad_patterns(pattern, lengths, message):
    with pytest.raises(ValueError, match=message):
        ops.rearrange(X, pattern, **lengths)

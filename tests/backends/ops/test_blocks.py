"""``unfold`` and ``fold`` (``backends/ops/blocks.py``) against Keras 3.15 outputs
(``KERAS_BACKEND=torch /work/kvenv/bin/python``, inline below), with gradients against
finite differences on every engine (each op's backward is the other).

Reference snippet::

    x = np.arange(2 * 3 * 5 * 6, dtype="float32").reshape(2, 3, 5, 6) / 10
    u = keras.ops.unfold(x, kernel_size=(2, 3), dilation=(1, 2), padding=(1, 0),
                         stride=(2, 1))              # u.shape, u[1, 7], u.sum()
    f = keras.ops.fold(u, output_size=(5, 6), kernel_size=(2, 3), dilation=(1, 2),
                       padding=(1, 0), stride=(2, 1))   # f[1, 2]
"""

import numpy as np
import pytest

from lamina import ops

X = np.arange(2 * 3 * 5 * 6, dtype="float32").reshape(2, 3, 5, 6) / 10
GEOMETRY = dict(kernel_size=(2, 3), dilation=(1, 2), padding=(1, 0), stride=(2, 1))
RNG = np.random.default_rng(11)


def test_match_keras():
    blocks = ops.unfold(X, **GEOMETRY).numpy()
    assert blocks.shape == (2, 18, 6) and blocks.dtype == np.float32
    np.testing.assert_allclose(blocks[1, 7], [0.0, 0.0, 12.8, 12.9, 14.0, 14.1], atol=1e-5)
    np.testing.assert_allclose(blocks.sum(), 1611.0, rtol=1e-6)
    image = ops.fold(blocks, output_size=(5, 6), **GEOMETRY).numpy()
    assert image.shape == (2, 3, 5, 6)
    np.testing.assert_allclose(image[1, 2], 15.0 + np.arange(30).reshape(5, 6) / 10,
                               atol=1e-4)
    assert ops.unfold(X, 2).shape == (2, 12, 20)


def _unfold_reference(x, kernel_size, dilation, padding, stride):
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel_size, dilation, padding, stride
    padded = np.pad(x, [(0, 0), (0, 0), (ph, ph), (pw, pw)])
    oh = (padded.shape[2] - dh * (kh - 1) - 1) // sh + 1
    ow = (padded.shape[3] - dw * (kw - 1) - 1) // sw + 1
    out = np.empty((x.shape[0], x.shape[1], kh, kw, oh, ow))
    for i in range(kh):
        for j in range(kw):
            out[:, :, i, j] = padded[:, :, i * dh:i * dh + (oh - 1) * sh + 1:sh,
                                     j * dw:j * dw + (ow - 1) * sw + 1:sw]
    return out.reshape(x.shape[0], -1, oh * ow)


def test_unfold_gradients(check_op):
    check_op(lambda x: ops.unfold(x, **GEOMETRY), [RNG.normal(size=(2, 2, 5, 6))],
             reference=lambda x: _unfold_reference(x, **GEOMETRY))


def test_fold_gradients(check_op):
    blocks = RNG.normal(size=(1, 2 * 6, 6))
    check_op(lambda b: ops.fold(b, (5, 6), **GEOMETRY), [blocks])


def test_fold_is_the_adjoint_of_unfold(engine):
    x, b = RNG.normal(size=(2, 2, 5, 6)), RNG.normal(size=(2, 12, 6))
    left = (ops.unfold(x, **GEOMETRY).numpy() * b).sum()
    right = (x * ops.fold(b, (5, 6), **GEOMETRY).numpy()).sum()
    np.testing.assert_allclose(left, right, rtol=1e-10)


def test_bad_arguments():
    with pytest.raises(ValueError, match="4-d input"):
        ops.unfold(X[0], 2)
    with pytest.raises(ValueError, match="3-d input"):
        ops.fold(X, (5, 6), 2)
    with pytest.raises(ValueError, match="does not match"):
        ops.fold(np.ones((1, 12, 5), "float32"), (5, 6), **GEOMETRY)
    with pytest.raises(ValueError, match="kernel_size"):
        ops.unfold(X, (2, 2, 2))
    with pytest.raises(ValueError, match="does not fit"):
        ops.unfold(X, 7)

"""``cdist`` and ``corrcoef`` (``backends/ops/pairwise.py``) against Keras 3.15 outputs
(``KERAS_BACKEND=torch /work/kvenv/bin/python``, inline below) and NumPy, with gradients
against finite differences on every engine.

Reference snippet::

    x = np.random.default_rng(0).normal(size=(3, 5)).astype("float32")
    print(keras.ops.corrcoef(x), keras.ops.cdist(x[:2], x))
"""

import numpy as np
import pytest

from lamina import ops

X = np.random.default_rng(0).normal(size=(3, 5)).astype("float32")
RNG = np.random.default_rng(7)
KERAS_CORRCOEF = [[1.0, 0.56724, -0.46376], [0.56724, 1.0, -0.01949], [-0.46376, -0.01949, 1.0]]
KERAS_CDIST = [[0.0, 1.8435, 3.16136], [1.8435, 0.0, 3.67513]]


def _cdist_reference(x, y):
    return np.sqrt(((x[..., :, None, :] - y[..., None, :, :]) ** 2).sum(-1))


def test_match_keras():
    np.testing.assert_allclose(ops.corrcoef(X).numpy(), KERAS_CORRCOEF, atol=1e-5)
    np.testing.assert_allclose(ops.cdist(X[:2], X).numpy(), KERAS_CDIST, atol=1e-5)
    assert ops.cdist(np.ones((4, 1, 2, 3)), np.ones((5, 6, 3))).shape == (4, 5, 2, 6)
    assert ops.corrcoef(np.array([1.0, 2.0, 4.0])).shape == ()


def test_cdist_gradients(check_op):
    check_op(ops.cdist, [RNG.normal(size=(2, 3, 4)), RNG.normal(size=(1, 5, 4))],
             reference=_cdist_reference)


def test_corrcoef_gradients(check_op):
    check_op(ops.corrcoef, [RNG.normal(size=(3, 6))], reference=np.corrcoef, atol=1e-5)


def test_integer_input_and_bad_arguments():
    assert ops.corrcoef(np.array([[1, 2, 3], [3, 1, 2]])).dtype == np.float32
    np.testing.assert_allclose(ops.corrcoef(np.array([[1, 2, 3], [3, 1, 2]])).numpy(),
                               [[1.0, -0.5], [-0.5, 1.0]], atol=1e-6)
    with pytest.raises(ValueError, match="rank >= 2"):
        ops.cdist(X[0], X)
    with pytest.raises(ValueError, match="same last dimension"):
        ops.cdist(X, X[:, :4])
    with pytest.raises(ValueError, match="broadcastable"):
        ops.cdist(np.ones((2, 3, 4)), np.ones((3, 3, 4)))
    with pytest.raises(ValueError, match="1-d or 2-d"):
        ops.corrcoef(np.ones((2, 3, 4)))

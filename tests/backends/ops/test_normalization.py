"""Normalization ops of ``keras.ops.nn`` (``backends/ops/normalization.py``): ``moments``,
``batch_normalization``, ``normalize``, ``rms_normalization`` and ``psnr`` against Keras
3.15's numbers, with finite-difference gradients, every engine."""

import numpy as np
import pytest

from lamina import ops

X = np.array([-3.5, -2.0, -0.9, -0.25, 0.0, 0.4, 1.2, 3.3]).reshape(2, 4)
RNG = np.random.default_rng(43)
# Produced with Keras 3.15.1 (torch backend), x = X.astype("float32"):
#   keras.ops.moments(x, axes=[1]); keras.ops.normalize(x);
#   keras.ops.normalize(x, order=1, axis=0);
#   keras.ops.rms_normalization(x, scale=np.array([1, 2, 3, 4.], "float32"));
#   keras.ops.psnr(x, x * 0.9, 4.0);
#   keras.ops.batch_normalization(x, [0.1, 0.2, 0.3, 0.4], [1., 2, 3, 4], axis=1,
#                                 offset=[1., 0, 0, 0], scale=[2., 1, 1, 1])
MOMENTS = ([-1.6625, 1.225], [1.516719, 1.621875])
NORMALIZE = [[-0.845833, -0.483333, -0.2175, -0.060417], [0.0, 0.113182, 0.339547, 0.933754]]
NORMALIZE_L1_AXIS0 = [[-1.0, -0.833333, -0.428571, -0.070423], [0.0, 0.166667, 0.571429,
                                                                  0.929578]]
RMS = [[-1.691665, -1.933332, -1.304999, -0.483333], [0.0, 0.452729, 2.037282, 7.470036]]
PSNR = 26.357345581054688
BATCH_NORM = [[-6.196403, -1.555246, -0.692705, -0.324959], [0.8001, 0.141386, 0.519529,
                                                               1.449819]]


def test_keras_numbers(engine):
    mean, variance = ops.moments(X, axes=[1])
    np.testing.assert_allclose(mean.numpy(), MOMENTS[0], atol=1e-6)
    np.testing.assert_allclose(variance.numpy(), MOMENTS[1], atol=1e-6)
    np.testing.assert_allclose(ops.normalize(X).numpy(), NORMALIZE, atol=1e-6)
    np.testing.assert_allclose(ops.normalize(X, order=1, axis=0).numpy(), NORMALIZE_L1_AXIS0,
                               atol=1e-6)
    np.testing.assert_allclose(ops.rms_normalization(X, scale=np.array([1.0, 2, 3, 4])).numpy(),
                               RMS, atol=2e-6)
    np.testing.assert_allclose(float(ops.psnr(X, X * 0.9, 4.0)), PSNR, rtol=1e-6)
    out = ops.batch_normalization(X, np.array([0.1, 0.2, 0.3, 0.4]), np.array([1.0, 2, 3, 4]),
                                  axis=1, offset=np.array([1.0, 0, 0, 0]),
                                  scale=np.array([2.0, 1, 1, 1]))
    np.testing.assert_allclose(out.numpy(), BATCH_NORM, atol=1e-6)
    for name in ["moments", "normalize", "rms_normalization", "psnr", "batch_normalization"]:
        assert getattr(ops.nn, name) is getattr(ops, name)


@pytest.mark.parametrize("axes,keepdims", [([0], False), ([0, 2], True), ([1], False)],
                         ids=str)
def test_moments(check_op, axes, keepdims):
    check_op(lambda v: ops.moments(v, axes, keepdims=keepdims), [RNG.standard_normal((3, 4, 2))],
             reference=lambda v: (v.mean(tuple(axes), keepdims=keepdims),
                                  v.var(tuple(axes), keepdims=keepdims)))
    with pytest.raises(NotImplementedError, match="synchronized"):
        ops.moments(X, [0], synchronized=True)


def test_batch_normalization(check_op):
    def reference(x, mean, variance, offset, scale):
        shape = (1, 3, 1)
        return ((x - mean.reshape(shape)) / np.sqrt(variance.reshape(shape) + 1e-3)
                * scale.reshape(shape) + offset.reshape(shape))

    check_op(lambda *a: ops.batch_normalization(a[0], a[1], a[2], axis=1, offset=a[3],
                                                scale=a[4]),
             [RNG.standard_normal((2, 3, 4)), RNG.standard_normal(3), RNG.uniform(0.5, 2, 3),
              RNG.standard_normal(3), RNG.standard_normal(3)], reference=reference)


@pytest.mark.parametrize("order,axis", [(2, -1), (1, 0), (3, 1)], ids=str)
def test_normalize(check_op, order, axis):
    check_op(lambda v: ops.normalize(v, axis=axis, order=order), [RNG.standard_normal((3, 4))],
             reference=lambda v: v / np.linalg.norm(v, ord=order, axis=axis, keepdims=True))
    with pytest.raises(ValueError, match="order"):
        ops.normalize(X, order=0)


def test_rms_normalization(check_op):
    check_op(lambda v, s: ops.rms_normalization(v, scale=s, epsilon=1e-5),
             [RNG.standard_normal((3, 4)), RNG.standard_normal(4)],
             reference=lambda v, s: v / np.sqrt((v * v).mean(-1, keepdims=True) + 1e-5) * s)


def test_psnr(check_op):
    check_op(lambda a, b: ops.psnr(a, b, 2.0),
             [RNG.uniform(0, 1, (2, 3)), RNG.uniform(0, 1, (2, 3))],
             reference=lambda a, b: 20 * np.log10(2.0) - 10 * np.log10(((a - b) ** 2).mean()))
    with pytest.raises(ValueError, match="same shape"):
        ops.psnr(np.ones(2), np.ones(3), 1.0)

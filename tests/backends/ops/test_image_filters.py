"""``gaussian_blur``, ``sobel_edges`` and ``ssim`` (``backends/ops/image_filters.py``)
against Keras 3.15 (NumPy backend for the first two, ``keras.ops.image.ssim`` itself) on the
same generated inputs (the snippet in ``test_image_sampling.py``'s docstring prints them,
continuing its random stream), and their gradients in the op harness."""

import numpy as np
import pytest

from lamina import ops

RNG = np.random.default_rng(9)
for _shape in ((2, 3, 4, 1), (3, 4)):          # the draws test_image_sampling.py uses first
    RNG.random(_shape)
RNG.uniform(-2, 5, (2, 5))
Y = RNG.random((1, 4, 5, 2)).astype("float32")
A = RNG.random((2, 12, 13, 2)).astype("float32")
B = np.clip(A + RNG.normal(0, 0.1, A.shape), 0, 1).astype("float32")

FILTERS = {
    "gaussian_blur": ((1, 4, 5, 2), [
        0.21587, 0.08416, 0.26185, 0.1898, 0.29019, 0.30529, 0.38073, 0.33126, 0.31185, 0.21213,
        0.32233, 0.14695, 0.38148, 0.2842, 0.40208, 0.41448, 0.51149, 0.44947, 0.41189, 0.29623,
        0.33851, 0.15802, 0.39314, 0.29533, 0.40214, 0.41957, 0.50562, 0.45708, 0.40492, 0.30441,
        0.27076, 0.12656, 0.30461, 0.22913, 0.29792, 0.31678, 0.36676, 0.34912, 0.28728, 0.23552]),
    "sobel_edges": ((1, 4, 5, 2, 2), [
        0.61812, 0.1091, -0.75944, 1.3209, -0.26041, -0.10165, -0.57456, 0.40565, 0.29077, 1.12091,
        0.24595, 0.64705, 0.05068, 1.45218, 0.31371, -0.06661, -0.64286, 0.12052, 0.22984, -1.62892,
        0.98018, -1.50014, -1.06402, 0.65501, -0.17947, -0.53061, -0.51952, 1.80091, -0.66595,
        1.61457, 1.04862, 1.64044, -0.66402, 0.72036, 1.32402, -0.71684, -0.74751, 0.07531, 1.1752,
        -1.21138, 0.71825, -1.68729, 2.02274, 0.11822, 0.86459, -1.35678, 1.10472, 1.96418, 0.12778,
        1.21746, -0.20464, 1.73595, -0.09238, 0.89923, -0.4075, -0.73981, 0.10696, 0.01229, 0.29994,
        -0.62979, 0.35618, -1.19734, 2.32733, -0.15982, 0.78365, -1.27293, 1.04968, 0.04655, 1.0845,
        0.69766, -1.00731, 0.28724, 0.62232, 0.7367, -1.41781, 0.09555, 0.21161, -0.03655, -0.64542,
        0.01468]),
    "ssim": ((2,), [0.95567, 0.9374]),
    "ssim_7": ((2,), [0.94578, 0.93954]),
}


def _assert(key, got):
    shape, values = FILTERS[key]
    got = ops.convert_to_numpy(got)
    assert got.shape == shape
    np.testing.assert_allclose(got.ravel(), values, atol=1e-5)


def test_gaussian_blur_matches_keras():
    _assert("gaussian_blur", ops.image.gaussian_blur(Y, (3, 5), (1.0, 2.0)))
    first = ops.image.gaussian_blur(np.moveaxis(Y, -1, 1), (3, 5), (1.0, 2.0),
                                    data_format="channels_first")
    _assert("gaussian_blur", np.moveaxis(ops.convert_to_numpy(first), 1, -1))
    _assert("gaussian_blur", ops.image.gaussian_blur(Y[0], (3, 5), (1.0, 2.0))[None])


def test_sobel_edges_matches_keras():
    _assert("sobel_edges", ops.image.sobel_edges(Y))
    first = ops.image.sobel_edges(np.moveaxis(Y, -1, 1), data_format="channels_first")
    assert tuple(first.shape) == (1, 2, 4, 5, 2)
    _assert("sobel_edges", np.moveaxis(ops.convert_to_numpy(first), 1, 3))


def test_ssim_matches_keras():
    _assert("ssim", ops.image.ssim(A, B))
    _assert("ssim_7", ops.image.ssim(A, B, max_val=2.0, filter_size=7, filter_sigma=1.0))
    one = ops.convert_to_numpy(ops.image.ssim(A[0], B[0]))
    assert one.shape == () and one == pytest.approx(FILTERS["ssim"][1][0], abs=1e-5)
    np.testing.assert_allclose(ops.convert_to_numpy(ops.image.ssim(A, A)), 1.0, atol=1e-5)


def test_gradients(check_op):
    x = np.random.default_rng(4).random((1, 5, 6, 2))
    check_op(lambda image: ops.image.gaussian_blur(image, (3, 3), (1.0, 0.7)), [x])
    check_op(ops.image.sobel_edges, [x])
    y = np.random.default_rng(6).random((1, 6, 7, 1))
    z = np.random.default_rng(7).random((1, 6, 7, 1))
    check_op(lambda a, b: ops.image.ssim(a, b, filter_size=3), [y, z])


def test_bad_arguments():
    with pytest.raises(ValueError, match="rank 3 or 4"):
        ops.image.gaussian_blur(Y[0, 0])
    with pytest.raises(ValueError, match="positive"):
        ops.image.gaussian_blur(Y, (0, 3))
    with pytest.raises(ValueError, match="one shape"):
        ops.image.ssim(A, B[:, :10])
    with pytest.raises(ValueError, match="data_format"):
        ops.image.sobel_edges(Y, data_format="NHWC")

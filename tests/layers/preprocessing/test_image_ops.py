"""The image kernels (``layers/preprocessing/image_ops.py``): resize weight matrices and
the projective transform on closed-form cases (the layers' tests compare them with Keras)."""

import numpy as np
import pytest

from lamina.layers.preprocessing import image_ops

RAMP = np.arange(20.0, dtype="float32").reshape(1, 4, 5, 1)


@pytest.mark.parametrize("method", image_ops.RESIZE_INTERPOLATIONS)
def test_resize_to_the_same_size_is_the_identity_and_keeps_constants(method):
    np.testing.assert_allclose(image_ops.resize(RAMP, (4, 5), method), RAMP, atol=1e-5)
    constant = np.full((2, 3, 4, 2), 7.0, "float32")
    for size in ((6, 2), (1, 9)):
        np.testing.assert_allclose(image_ops.resize(constant, size, method, antialias=True),
                                   7.0, rtol=1e-6)


def test_resize_closed_forms():
    # bilinear halving with half-pixel centers averages 2x2 blocks; area does too
    for method in ("bilinear", "area"):
        np.testing.assert_allclose(image_ops.resize(RAMP[:, :, :4], (2, 2), method)[0, ..., 0],
                                   [[3.0, 5.0], [13.0, 15.0]])
    np.testing.assert_array_equal(image_ops.resize(RAMP, (2, 5), "nearest")[0, :, :, 0],
                                  RAMP[0, 1::2, :, 0])


def test_aspect_crop_box_and_padding():
    assert image_ops.aspect_crop_box(5, 7, 4, 4) == (0, 1, 5, 5)
    assert image_ops.aspect_crop_box(5, 7, 6, 2) == (0, 3, 5, 1)
    # toward 3:2 the 4x5 image needs height 7: Keras pads int(3 / 2) = 1 row on each side
    padded = image_ops.pad_to_aspect(RAMP, 3, 2, -1.0)
    assert padded.shape == (1, 6, 5, 1)
    np.testing.assert_array_equal(padded[0, 1:5], RAMP[0])
    assert np.all(padded[0, [0, 5]] == -1.0)


@pytest.mark.parametrize("fill_mode", image_ops.FILL_MODES)
def test_identity_and_integer_shift_transforms(fill_mode):
    identity = [1, 0, 0, 0, 1, 0, 0, 0]
    out = image_ops.affine_transform(RAMP, [identity], "bilinear", fill_mode)
    np.testing.assert_allclose(out, RAMP)
    shift = [1, 0, -2, 0, 1, 0, 0, 0]          # output column x reads input column x - 2
    out = image_ops.affine_transform(RAMP, [shift], "nearest", fill_mode, fill_value=-1.0)
    np.testing.assert_array_equal(out[0, :, 2:, 0], RAMP[0, :, :3, 0])
    left = {"constant": [-1, -1], "nearest": [0, 0], "wrap": [3, 4],
            "reflect": [1, 0]}[fill_mode]       # TensorFlow's fill of columns -2, -1
    np.testing.assert_array_equal(out[0, 0, :2, 0], left)


def test_rotation_matrix_about_the_center():
    matrix = image_ops.rotation_zoom_matrix(np.float32([np.pi]), np.ones(1, "float32"),
                                            np.ones(1, "float32"), np.zeros(1, "float32"),
                                            np.zeros(1, "float32"), 4, 5)
    out = image_ops.affine_transform(RAMP, matrix, "nearest", "constant")
    np.testing.assert_array_equal(out, RAMP[:, ::-1, ::-1])

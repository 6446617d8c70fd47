"""``ops.image.extract_patches`` (``backends/ops/image.py``) against Keras 3.15 outputs
(inline, from ``KERAS_BACKEND=torch /work/kvenv/bin/python`` on the same generated input),
and its gradient (each input value's gradient counts the patches that hold it)."""

import numpy as np
import pytest

import lamina
from lamina import ops

RNG = np.random.default_rng(0)
X = RNG.normal(size=(2, 6, 6, 2)).astype("float32")
V = RNG.normal(size=(1, 4, 4, 4, 1)).astype("float32")


def test_matches_keras():
    a = ops.convert_to_numpy(ops.image.extract_patches(X, 3))
    assert a.shape == (2, 2, 2, 18)
    np.testing.assert_allclose(a[1, 1, 0, :6], [-2.2501, 0.3864, -0.5816, 0.1093, -0.0757,
                                                0.2021], atol=1e-4)
    assert a.sum() == pytest.approx(11.226699829101562, abs=1e-4)
    b = ops.convert_to_numpy(ops.image.extract_patches(X, (2, 3), strides=(1, 2),
                                                       padding="same"))
    assert b.shape == (2, 6, 3, 12)
    np.testing.assert_allclose(b[0, 2, 1, :6], [-0.4577, 0.2202, -1.0096, -0.2092, -0.1592,
                                                0.5408], atol=1e-4)
    assert b.sum() == pytest.approx(28.460329055786133, abs=1e-4)
    c = ops.convert_to_numpy(ops.image.extract_patches(X[0], 2, dilation_rate=2, strides=1))
    assert c.shape == (4, 4, 8) and c.sum() == pytest.approx(19.742212295532227, abs=1e-4)
    d = ops.image.extract_patches(np.moveaxis(X, -1, 1), 3, data_format="channels_first")
    np.testing.assert_array_equal(np.moveaxis(ops.convert_to_numpy(d), 1, -1), a)
    e = ops.convert_to_numpy(ops.image.extract_patches(V, (2, 2, 2)))
    assert e.shape == (1, 2, 2, 2, 8)
    np.testing.assert_allclose(e[0, 1, 0, 1], [-1.935, -0.2399, 0.6131, -0.2003, -0.2831,
                                               1.6433, -0.4726, 0.5863], atol=1e-4)


def test_gradient_counts_covering_patches():
    x = lamina.Variable(X[:1])
    (gx,) = lamina.grad(ops.sum(ops.image.extract_patches(x, 2, strides=1)), [x])
    grad = ops.convert_to_numpy(gx)[0, :, :, 0]
    covers = np.minimum(np.arange(6), 1) + np.minimum(5 - np.arange(6), 1)
    np.testing.assert_array_equal(grad, np.outer(covers, covers))


def test_bad_arguments():
    with pytest.raises(ValueError, match="size"):
        ops.image.extract_patches(X, (1, 2, 3, 4))
    with pytest.raises(ValueError, match="rank 3 or 4"):
        ops.image.extract_patches(X[0, 0], 2)
    with pytest.raises(ValueError, match="data_format"):
        ops.image.extract_patches(X, 2, data_format="nhwc")


def test_extract_patches_3d():
    e = ops.convert_to_numpy(ops.image.extract_patches(V, (2, 2, 2)))
    np.testing.assert_array_equal(ops.convert_to_numpy(ops.image.extract_patches_3d(V, 2)), e)
    f = ops.image.extract_patches_3d(V[0], (2, 2, 1), strides=1)
    assert tuple(f.shape) == (3, 3, 4, 4)
    with pytest.raises(ValueError, match="size"):
        ops.image.extract_patches_3d(V, (2, 2))


def test_crop_and_pad_images():
    crop = ops.convert_to_numpy(ops.image.crop_images(X, 1, 2, target_height=3,
                                                      right_cropping=1))
    np.testing.assert_array_equal(crop, X[:, 1:4, 2:5])
    crop = ops.image.crop_images(np.moveaxis(X[0], -1, 0), bottom_cropping=2, left_cropping=1,
                                 target_height=3, target_width=4, data_format="channels_first")
    np.testing.assert_array_equal(np.moveaxis(ops.convert_to_numpy(crop), 0, -1), X[0, 1:4, 1:5])
    padded = ops.convert_to_numpy(ops.image.pad_images(X, 1, 2, target_height=8,
                                                       right_padding=1))
    assert padded.shape == (2, 8, 9, 2)
    np.testing.assert_array_equal(padded[:, 1:7, 2:8], X)
    assert padded.sum() == pytest.approx(X.sum(), abs=1e-4)
    back = ops.image.crop_images(ops.image.pad_images(X, 1, 2, 1, 1), 1, 2, 1, 1)
    np.testing.assert_array_equal(ops.convert_to_numpy(back), X)


def test_crop_and_pad_gradients(check_op):
    x = RNG.normal(size=(1, 4, 5, 2))
    check_op(lambda image: ops.image.crop_images(image, 1, 1, target_height=2,
                                                 target_width=3), [x])
    check_op(lambda image: ops.image.pad_images(image, 1, 0, 2, 1), [x])


def test_crop_and_pad_bad_arguments():
    with pytest.raises(ValueError, match="exactly two of top_padding"):
        ops.image.pad_images(X, 1, 1, 1, 1, target_height=9)
    with pytest.raises(ValueError, match="left_cropping >= 0"):
        ops.image.crop_images(X, 0, -1, 0, 0)
    with pytest.raises(ValueError, match="top_padding >= 0"):
        ops.image.pad_images(X, bottom_padding=0, target_height=3, left_padding=0,
                             right_padding=0)


def test_the_namespace_has_every_keras_image_op():
    keras_names = ["affine_transform", "crop_images", "elastic_transform", "extract_patches",
                   "extract_patches_3d", "gaussian_blur", "hsv_to_rgb", "map_coordinates",
                   "pad_images", "perspective_transform", "resize", "rgb_to_grayscale",
                   "rgb_to_hsv", "scale_and_translate", "sobel_edges", "ssim"]  # Keras 3.15
    assert sorted(lamina.ops.image.__all__) == keras_names
    assert all(callable(getattr(lamina.ops.image, name)) for name in keras_names)


def test_data_format_none_is_the_configured_image_data_format():
    # Keras: the image ops' data_format=None reads keras.config.image_data_format().
    images = np.arange(2 * 3 * 4 * 5, dtype="float32").reshape(2, 3, 4, 5)
    lamina.config.set_image_data_format("channels_first")
    try:
        cropped = ops.image.crop_images(images, 1, 1, target_height=2, target_width=3)
    finally:
        lamina.config.set_image_data_format("channels_last")
    np.testing.assert_array_equal(ops.convert_to_numpy(cropped), images[:, :, 1:3, 1:4])

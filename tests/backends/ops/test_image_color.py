"""``rgb_to_grayscale``, ``rgb_to_hsv`` and ``hsv_to_rgb`` (``backends/ops/image_color.py``)
against Keras 3.15's NumPy backend on the same generated image, printed by::

    KERAS_BACKEND=torch /work/kvenv/bin/python -c '
    import numpy as np
    npimg = ...   # Keras' NumPy-backend image module, loaded as in test_image_sampling.py
    C = np.random.default_rng(8).random((2, 3, 3)).astype("float32")
    for f in ("rgb_to_grayscale", "rgb_to_hsv", "hsv_to_rgb"):
        print(f, np.round(npimg[f](C).ravel(), 5).tolist())'

and their gradients in the op harness."""

import numpy as np
import pytest

from lamina import ops

C = np.random.default_rng(8).random((2, 3, 3)).astype("float32")
COLOR = {
    "rgb_to_grayscale": [0.7136, 0.79091, 0.36188, 0.31415, 0.26179, 0.34402],
    "rgb_to_hsv": [0.33127, 0.67718, 0.98728, 0.19498, 0.55042, 0.8699, 0.13386, 0.75575,
                   0.43788, 0.98892, 0.4961, 0.47897, 0.66425, 0.77301, 0.81383, 0.74979,
                   0.5669, 0.5909],
    "hsv_to_rgb": [0.01606, 0.31871, 0.00406, 0.29967, 0.05088, 0.39108, 0.06709, 0.10695,
                   0.09209, 0.19508, 0.25715, 0.24931, 0.79673, 0.81383, 0.65606, 0.43968,
                   0.5909, 0.52102],
}


@pytest.mark.parametrize("name", sorted(COLOR))
def test_matches_keras_in_both_layouts(name):
    op = getattr(ops.image, name)
    got = ops.convert_to_numpy(op(C))
    assert got.dtype == np.float32 and got.shape[:2] == (2, 3)
    np.testing.assert_allclose(got.ravel(), COLOR[name], atol=1e-5)
    batch = np.stack([C, C[::-1]])
    first = ops.convert_to_numpy(op(np.moveaxis(batch, -1, 1), data_format="channels_first"))
    np.testing.assert_allclose(np.moveaxis(first, 1, -1)[0].ravel(), COLOR[name], atol=1e-5)


def test_round_trip_grayscale_input_and_integer_images():
    np.testing.assert_allclose(ops.convert_to_numpy(
        ops.image.hsv_to_rgb(ops.image.rgb_to_hsv(C))), C, atol=1e-6)
    gray = C[..., :1]
    np.testing.assert_array_equal(ops.convert_to_numpy(ops.image.rgb_to_grayscale(gray)), gray)
    as_uint8 = ops.convert_to_numpy(ops.image.rgb_to_grayscale((C * 255).astype("uint8")))
    assert as_uint8.dtype == np.uint8 and as_uint8.shape == (2, 3, 1)


def test_gradients(check_op):
    x = np.random.default_rng(3).random((1, 2, 3, 3))
    check_op(ops.image.rgb_to_grayscale, [x])
    check_op(ops.image.rgb_to_hsv, [x])
    check_op(ops.image.hsv_to_rgb, [x])


def test_bad_arguments():
    with pytest.raises(ValueError, match="1 or 3 channels"):
        ops.image.rgb_to_grayscale(np.ones((2, 2, 2)))
    with pytest.raises(ValueError, match="float"):
        ops.image.rgb_to_hsv(np.ones((2, 2, 3), "int32"))
    with pytest.raises(ValueError, match="rank 3 or 4"):
        ops.image.hsv_to_rgb(np.ones((2, 3)))

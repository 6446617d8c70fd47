"""``ops.image.resize`` and ``scale_and_translate`` (``backends/ops/image_resize.py``)
against Keras 3.15's NumPy backend on the same generated image, gradients in the op
harness, and the per-axis weight matrices on closed forms.

The references were printed by (Keras' NumPy-backend image module, loaded without jax)::

    KERAS_BACKEND=torch /work/kvenv/bin/python -c '
    import numpy as np
    npimg = ...   # Keras' NumPy-backend image module, loaded as in test_image_sampling.py
    def show(name, a):
        a = np.asarray(a, dtype=np.float64)
        print(f"{name!r}: ({a.shape}, {np.round(a.ravel(), 5).tolist()}),")
    X = np.random.default_rng(7).random((1, 4, 5, 1)).astype("float32")
    for m in ("bilinear", "nearest", "bicubic", "lanczos3", "lanczos5"):
        show(m, npimg["resize"](X, (3, 7), interpolation=m))
        show(m + "_antialias", npimg["resize"](X, (2, 3), interpolation=m, antialias=True))
    show("crop", npimg["resize"](X, (3, 3), crop_to_aspect_ratio=True))
    show("pad", npimg["resize"](X, (3, 2), pad_to_aspect_ratio=True, fill_value=0.5))
    show("scale_and_translate", npimg["scale_and_translate"](X[0, :, :, 0], (3, 6),
         np.array([0.7, 1.3]), np.array([0.4, -0.6]), (0, 1), "cubic", True))'
"""

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.backends.ops import image_resize

X = np.random.default_rng(7).random((1, 4, 5, 1)).astype("float32")
RESIZE = {
    "bilinear": ((1, 3, 7, 1), [
        0.66651, 0.71339, 0.75848, 0.78328, 0.45273, 0.32378, 0.32813, 0.58829, 0.33318, 0.25505,
        0.53805, 0.59735, 0.56329, 0.48624, 0.51175, 0.71989, 0.82657, 0.70303, 0.6242, 0.7279,
        0.90822]),
    "bilinear_antialias": ((1, 2, 3, 1), [0.57456, 0.60672, 0.44431, 0.51538, 0.56303, 0.64878]),
    "nearest": ((1, 3, 7, 1), [
        0.6251, 0.89721, 0.89721, 0.77569, 0.22521, 0.22521, 0.30017, 0.30303, 0.27843, 0.27843,
        0.25487, 0.44508, 0.44508, 0.50455, 0.5535, 0.9955, 0.9955, 0.79266, 0.62218, 0.62218,
        0.98896]),
    "nearest_antialias": ((1, 2, 3, 1), [0.87355, 0.82123, 0.46793, 0.5535, 0.79266, 0.98896]),
    "bicubic": ((1, 3, 7, 1), [
        0.65185, 0.73448, 0.81544, 0.78706, 0.41144, 0.27225, 0.3203, 0.62002, 0.25117, 0.11015,
        0.50728, 0.63889, 0.57598, 0.45601, 0.49556, 0.75428, 0.90325, 0.72527, 0.59885, 0.73774,
        0.95382]),
    "bicubic_antialias": ((1, 2, 3, 1), [0.57875, 0.61049, 0.42986, 0.50563, 0.55311, 0.66705]),
    "lanczos3": ((1, 3, 7, 1), [
        0.6681, 0.71827, 0.83974, 0.80334, 0.43238, 0.25965, 0.3339, 0.65624, 0.17396, -0.06108,
        0.46773, 0.7046, 0.575, 0.41675, 0.46302, 0.74607, 0.94084, 0.70789, 0.54792, 0.74055,
        0.96287]),
    "lanczos3_antialias": ((1, 2, 3, 1), [0.56403, 0.5938, 0.42575, 0.4982, 0.54705, 0.68061]),
    "lanczos5": ((1, 3, 7, 1), [
        0.68415, 0.71392, 0.85164, 0.8164, 0.4508, 0.26459, 0.35412, 0.67291, 0.12572, -0.18505,
        0.43708, 0.76315, 0.54878, 0.40238, 0.45098, 0.73637, 0.97724, 0.70103, 0.50395, 0.74707,
        0.9505]),
    "lanczos5_antialias": ((1, 2, 3, 1), [0.5551, 0.58609, 0.4281, 0.49613, 0.54389, 0.68705]),
    "crop": ((1, 3, 3, 1), [
        0.68018, 0.76592, 0.39764, 0.51389, 0.33995, 0.60724, 0.57246, 0.78951, 0.61106]),
    "pad": ((1, 3, 2, 1), [0.66459, 0.37197, 0.25346, 0.58737, 0.6925, 0.60694]),
    "scale_and_translate": ((3, 6), [
        0.72348, 0.90227, 0.8356, 0.40306, 0.22367, 0.30103, 0.53494, 0.1707, 0.64038, 0.68645,
        0.54181, 0.41023, 0.48793, 0.64283, 0.52533, 0.50695, 0.63276, 0.77455]),
}


def _assert(key, got, atol=1e-5):
    shape, values = RESIZE[key]
    got = ops.convert_to_numpy(got)
    assert got.shape == shape
    np.testing.assert_allclose(got.ravel(), values, atol=atol)


@pytest.mark.parametrize("method", ["bilinear", "nearest", "bicubic", "lanczos3", "lanczos5"])
def test_interpolations_match_keras(method):
    # bicubic without antialias is TensorFlow's (its 1024-entry coefficient table, which
    # Keras' TensorFlow backend uses): within 1e-3 of the NumPy backend's exact Keys cubic
    _assert(method, ops.image.resize(X, (3, 7), method), 1e-3 if method == "bicubic" else 1e-5)
    _assert(method + "_antialias", ops.image.resize(X, (2, 3), method, antialias=True))


def test_aspect_ratio_layouts_and_integer_images():
    _assert("crop", ops.image.resize(X, (3, 3), crop_to_aspect_ratio=True))
    _assert("pad", ops.image.resize(X, (3, 2), pad_to_aspect_ratio=True, fill_value=0.5))
    first = ops.image.resize(np.moveaxis(X, -1, 1), (3, 7), data_format="channels_first")
    _assert("bilinear", np.moveaxis(ops.convert_to_numpy(first), 1, -1))
    _assert("bilinear", ops.image.resize(X[0], (3, 7))[None])
    as_uint8 = ops.convert_to_numpy(ops.image.resize((X * 255).astype("uint8"), (3, 7)))
    assert as_uint8.dtype == np.uint8      # rounded and saturated in the input's dtype
    expected = ops.convert_to_numpy(ops.image.resize((X * 255).astype("uint8").astype(
        "float32"), (3, 7)))
    np.testing.assert_array_equal(as_uint8, np.clip(np.round(expected), 0, 255))


def test_scale_and_translate_matches_keras():
    _assert("scale_and_translate", ops.image.scale_and_translate(
        X[0, :, :, 0], (3, 6), np.float32([0.7, 1.3]), np.float32([0.4, -0.6]), (0, 1),
        "cubic"))
    # Keras' docstring example: doubling with the half-pixel translation
    out = ops.image.scale_and_translate(np.arange(9.0, dtype="float32").reshape(3, 3),
                                        (5, 5), [2.0, 2.0], [-0.5, -0.5], (0, 1), "linear")
    np.testing.assert_allclose(ops.convert_to_numpy(out)[0], [0.0, 0.5, 1.0, 1.5, 2.0])


@pytest.mark.parametrize("method", ["bilinear", "nearest", "area", "lanczos3"])
def test_gradients(check_op, method):
    x = np.random.default_rng(1).random((2, 3, 4, 2))
    check_op(lambda image: ops.image.resize(image, (5, 3), method, antialias=True), [x])


def test_scale_and_translate_gradient(check_op):
    x = np.random.default_rng(2).random((3, 4))
    check_op(lambda image: ops.image.scale_and_translate(image, (5, 2), [1.5, 0.5],
                                                         [0.2, 0.0], (0, 1), "linear"), [x])


@pytest.mark.parametrize("method", image_resize.RESIZE_INTERPOLATIONS)
def test_same_size_is_the_identity_and_constants_stay(method):
    ramp = np.arange(20.0, dtype="float32").reshape(1, 4, 5, 1)
    np.testing.assert_allclose(ops.convert_to_numpy(ops.image.resize(ramp, (4, 5), method)),
                               ramp, atol=1e-5)
    constant = np.full((2, 3, 4, 2), 7.0, "float32")
    for size in ((6, 2), (1, 9)):
        np.testing.assert_allclose(ops.convert_to_numpy(
            ops.image.resize(constant, size, method, antialias=True)), 7.0, rtol=1e-6)


def test_weight_closed_forms():
    # halving with half-pixel centers averages pairs, bilinear and area alike
    for method in ("bilinear", "area"):
        np.testing.assert_allclose(image_resize.resize_weights(4, 2, method, False),
                                   [[0.5, 0.5, 0, 0], [0, 0, 0.5, 0.5]])
    np.testing.assert_array_equal(image_resize.nearest_indices(4, 2), [1, 3])
    assert image_resize.aspect_crop_box(5, 7, 4, 4) == (0, 1, 5, 5)
    assert image_resize.aspect_crop_box(5, 7, 6, 2) == (0, 3, 5, 1)


def test_bad_arguments():
    with pytest.raises(ValueError, match="size"):
        ops.image.resize(X, (3,))
    with pytest.raises(ValueError, match="interpolation"):
        ops.image.resize(X, (3, 3), "cubic")
    with pytest.raises(ValueError, match="fill_mode"):
        ops.image.resize(X, (3, 3), fill_mode="reflect")
    with pytest.raises(ValueError, match="only one"):
        ops.image.resize(X, (3, 3), crop_to_aspect_ratio=True, pad_to_aspect_ratio=True)
    with pytest.raises(ValueError, match="rank 3 or 4"):
        ops.image.resize(X[0, 0], (3, 3))
    with pytest.raises(ValueError, match="method"):
        ops.image.scale_and_translate(X, (1, 2, 2, 1), [1, 1], [0, 0], (1, 2), "area")
    assert isinstance(ops.image.resize(lamina.Tensor(X), (2, 2)), lamina.Tensor)


def test_gradients_through_the_aspect_ratio_crop_and_pad(check_op):
    x = np.random.default_rng(3).random((1, 4, 6, 1))
    check_op(lambda image: ops.image.resize(image, (3, 3), crop_to_aspect_ratio=True), [x])
    check_op(lambda image: ops.image.resize(image, (4, 2), "bicubic", pad_to_aspect_ratio=True,
                                            fill_value=0.5), [x])

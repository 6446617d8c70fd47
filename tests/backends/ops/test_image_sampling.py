"""``map_coordinates``, ``affine_transform``, ``perspective_transform`` and
``elastic_transform`` (``backends/ops/image_sampling.py``) against Keras 3.15's NumPy
backend on the same generated inputs, gradients in the op harness, and the differences
kept on purpose (TensorFlow's ``wrap`` and half-away rounding in ``affine_transform``, as
Keras' layers and its TensorFlow backend do).

The references (shared with ``test_image_filters.py``) were printed by (Keras' NumPy-backend
image module, loaded without jax)::

    KERAS_BACKEND=torch /work/kvenv/bin/python -c '
    import pathlib, numpy as np, keras
    src = pathlib.Path(keras.__file__).parent / "src/backend/numpy/image.py"
    npimg = {}
    exec(src.read_text().replace("from keras.src.backend.numpy.core import "
                                 "convert_to_tensor", "convert_to_tensor = np.asarray"), npimg)
    def show(name, a):
        a = np.asarray(a, dtype=np.float64)
        print(f"{name!r}: ({a.shape}, {np.round(a.ravel(), 5).tolist()}),")
    rng = np.random.default_rng(9)
    X = rng.random((2, 3, 4, 1)).astype("float32")
    T = np.float32([[0.93, 0.31, -0.37, -0.23, 1.13, 0.71, 0, 0],
                    [1.29, -0.41, 0.23, 0.53, 0.83, -1.11, 0, 0]])
    V = rng.random((3, 4)).astype("float32")
    C = rng.uniform(-2, 5, (2, 5)).astype("float32")
    for interp in ("bilinear", "nearest"):
        for mode in ("constant", "nearest", "reflect", "mirror"):
            show(f"affine_{interp}_{mode}", npimg["affine_transform"](X, T, interp, mode, 0.5))
    for order in (0, 1):
        for mode in ("constant", "nearest", "wrap", "reflect", "mirror"):
            show(f"map_{order}_{mode}", npimg["map_coordinates"](V, C, order, mode, 0.5))
    S = np.float32([[0, 0], [3, 0], [0, 2], [3, 2]])
    E = np.float32([[0.3, 0.2], [2.6, 0.1], [0.2, 1.7], [3.1, 2.2]])
    for interp in ("bilinear", "nearest"):
        show(f"perspective_{interp}", npimg["perspective_transform"](X, S, E, interp, 0.5))
    Y = rng.random((1, 4, 5, 2)).astype("float32")
    show("gaussian_blur", npimg["gaussian_blur"](Y, (3, 5), (1.0, 2.0)))
    show("sobel_edges", npimg["sobel_edges"](Y))
    A = rng.random((2, 12, 13, 2)).astype("float32")
    B = np.clip(A + rng.normal(0, 0.1, A.shape), 0, 1).astype("float32")
    show("ssim", keras.ops.image.ssim(A, B))
    show("ssim_7", keras.ops.image.ssim(A, B, max_val=2.0, filter_size=7, filter_sigma=1.0))'
"""

import numpy as np
import pytest

import lamina
from lamina import ops

RNG = np.random.default_rng(9)
X = RNG.random((2, 3, 4, 1)).astype("float32")
T = np.float32([[0.93, 0.31, -0.37, -0.23, 1.13, 0.71, 0, 0],
                [1.29, -0.41, 0.23, 0.53, 0.83, -1.11, 0, 0]])
V = RNG.random((3, 4)).astype("float32")
C = RNG.uniform(-2, 5, (2, 5)).astype("float32")
S = np.float32([[0, 0], [3, 0], [0, 2], [3, 2]])
E = np.float32([[0.3, 0.2], [2.6, 0.1], [0.2, 1.7], [3.1, 2.2]])

SAMPLING = {
    "affine_bilinear_constant": ((2, 3, 4, 1), [
        0.66429, 0.67992, 0.55347, 0.68056, 0.15869, 0.58105, 0.72092, 0.794, 0.48888, 0.48592,
        0.47, 0.19943, 0.5, 0.67221, 0.80624, 0.5, 0.20812, 0.80073, 0.56997, 0.59822, 0.36721,
        0.59188, 0.71953, 0.80108]),
    "affine_bilinear_nearest": ((2, 3, 4, 1), [
        0.76079, 0.67992, 0.55347, 0.68056, 0.13691, 0.58105, 0.72092, 0.794, 0.12925, 0.44583,
        0.43877, 0.06515, 0.19537, 0.91002, 0.82236, 0.76356, 0.00563, 0.80073, 0.56997, 0.81685,
        0.17611, 0.59188, 0.71953, 0.98624]),
    "affine_bilinear_reflect": ((2, 3, 4, 1), [
        0.76079, 0.67992, 0.55347, 0.68056, 0.13691, 0.58105, 0.72092, 0.794, 0.12925, 0.44583,
        0.43877, 0.06515, 0.21846, 0.91002, 0.82236, 0.75269, 0.00563, 0.80073, 0.56997, 0.81685,
        0.17611, 0.59188, 0.71953, 0.98624]),
    "affine_bilinear_mirror": ((2, 3, 4, 1), [
        0.75054, 0.67992, 0.55347, 0.68056, 0.15952, 0.58105, 0.72092, 0.794, 0.7468, 0.78597,
        0.65704, 0.31546, 0.40416, 0.6688, 0.81409, 0.66648, 0.21898, 0.80073, 0.56997, 0.60694,
        0.52162, 0.59188, 0.71953, 0.93492]),
    "affine_nearest_constant": ((2, 3, 4, 1), [
        0.71607, 0.28682, 0.28682, 0.60315, 0.02659, 0.43725, 0.86039, 0.91824, 0.5, 0.5, 0.5,
        0.06515, 0.5, 0.5, 0.78461, 0.5, 0.00563, 0.83062, 0.29918, 0.5, 0.5, 0.70533, 0.98774,
        0.98624]),
    "affine_nearest_nearest": ((2, 3, 4, 1), [
        0.71607, 0.28682, 0.28682, 0.60315, 0.02659, 0.43725, 0.86039, 0.91824, 0.02659, 0.43725,
        0.48494, 0.06515, 0.00563, 0.9833, 0.78461, 0.78461, 0.00563, 0.83062, 0.29918, 0.74075,
        0.3156, 0.70533, 0.98774, 0.98624]),
    "affine_nearest_reflect": ((2, 3, 4, 1), [
        0.71607, 0.28682, 0.28682, 0.60315, 0.02659, 0.43725, 0.86039, 0.91824, 0.02659, 0.43725,
        0.48494, 0.06515, 0.00563, 0.9833, 0.78461, 0.78461, 0.00563, 0.83062, 0.29918, 0.74075,
        0.3156, 0.70533, 0.98774, 0.98624]),
    "affine_nearest_mirror": ((2, 3, 4, 1), [
        0.71607, 0.28682, 0.28682, 0.60315, 0.02659, 0.43725, 0.86039, 0.91824, 0.71607, 0.91538,
        0.86039, 0.06515, 0.3156, 0.29918, 0.78461, 0.9833, 0.00563, 0.83062, 0.29918, 0.29918,
        0.70533, 0.70533, 0.98774, 0.98624]),
    "map_0_constant": ((5,), [0.5, 0.5, 0.5, 0.5, 0.60594]),
    "map_0_nearest": ((5,), [0.70821, 0.06225, 0.88286, 0.5545, 0.60594]),
    "map_0_wrap": ((5,), [0.19509, 0.06225, 0.06225, 0.91281, 0.60594]),
    "map_0_reflect": ((5,), [0.70821, 0.5545, 0.88286, 0.70821, 0.60594]),
    "map_0_mirror": ((5,), [0.37013, 0.60594, 0.08973, 0.91281, 0.60594]),
    "map_1_constant": ((5,), [0.5, 0.5, 0.5, 0.5, 0.55772]),
    "map_1_nearest": ((5,), [0.65226, 0.06225, 0.88286, 0.5545, 0.58739]),
    "map_1_wrap": ((5,), [0.18211, 0.38897, 0.14863, 0.79105, 0.69648]),
    "map_1_reflect": ((5,), [0.62981, 0.5679, 0.87178, 0.63422, 0.58739]),
    "map_1_mirror": ((5,), [0.42059, 0.52878, 0.23753, 0.56827, 0.55501]),
    "perspective_bilinear": ((2, 3, 4, 1), [
        0.59676, 0.36622, 0.64329, 0.65083, 0.55559, 0.86788, 0.86184, 0.84843, 0.27692, 0.44907,
        0.44763, 0.20368, 0.3708, 0.75959, 0.83853, 0.65467, 0.38569, 0.68622, 0.41505, 0.70372,
        0.39621, 0.74652, 0.98175, 0.94792]),
    "perspective_nearest": ((2, 3, 4, 1), [
        0.5, 0.28682, 0.60315, 0.77753, 0.71607, 0.91538, 0.86039, 0.91824, 0.02659, 0.43725,
        0.48494, 0.06515, 0.5, 0.83062, 0.9833, 0.78461, 0.3156, 0.70533, 0.29918, 0.74075, 0.27975,
        0.78259, 0.98774, 0.98624]),
}


def _assert(key, got):
    shape, values = SAMPLING[key]
    got = ops.convert_to_numpy(got)
    assert got.shape == shape
    np.testing.assert_allclose(got.ravel(), values, atol=1e-5)


@pytest.mark.parametrize("fill_mode", ["constant", "nearest", "reflect", "mirror"])
@pytest.mark.parametrize("interpolation", ["bilinear", "nearest"])
def test_affine_transform_matches_keras(interpolation, fill_mode):
    _assert(f"affine_{interpolation}_{fill_mode}",
            ops.image.affine_transform(X, T, interpolation, fill_mode, 0.5))
    first = ops.image.affine_transform(np.moveaxis(X, -1, 1), T, interpolation, fill_mode, 0.5,
                                       data_format="channels_first")
    _assert(f"affine_{interpolation}_{fill_mode}",
            np.moveaxis(ops.convert_to_numpy(first), 1, -1))


def test_affine_transform_one_image_wrap_and_projective():
    one = ops.image.affine_transform(X[0], T[0], "bilinear", "constant", 0.5)
    np.testing.assert_allclose(ops.convert_to_numpy(one), np.reshape(
        SAMPLING["affine_bilinear_constant"][1][:12], (3, 4, 1)), atol=1e-5)
    ramp = np.arange(20.0, dtype="float32").reshape(1, 4, 5, 1)
    shift = [1, 0, -2, 0, 1, 0, 0, 0]          # output column x reads input column x - 2
    out = ops.convert_to_numpy(ops.image.affine_transform(ramp, shift, "nearest", "wrap"))
    np.testing.assert_array_equal(out[0, :, 2:, 0], ramp[0, :, :3, 0])
    # TensorFlow's wrap (ImageProjectiveTransformV3) reads columns -2, -1 as 3, 4
    np.testing.assert_array_equal(out[0, 0, :2, 0], [3, 4])
    # the projective row divides: k = 1 + x / 4 halves the sampled column at x = 4
    out = ops.convert_to_numpy(ops.image.affine_transform(ramp, [1, 0, 0, 0, 1, 0, 0.25, 0],
                                                          "nearest"))
    np.testing.assert_array_equal(out[0, 0, :, 0], [0, 1, 1, 2, 2])
    # halves round away from zero (TensorFlow): column -0.5 is outside
    out = ops.image.affine_transform(ramp, [1, 0, -0.5, 0, 1, 0, 0, 0], "nearest",
                                     fill_value=-1.0)
    np.testing.assert_array_equal(ops.convert_to_numpy(out)[0, 0, :, 0], [-1, 1, 2, 3, 4])


@pytest.mark.parametrize("fill_mode", ["constant", "nearest", "wrap", "reflect", "mirror"])
@pytest.mark.parametrize("order", [0, 1])
def test_map_coordinates_matches_keras(order, fill_mode):
    _assert(f"map_{order}_{fill_mode}", ops.image.map_coordinates(V, C, order, fill_mode, 0.5))


@pytest.mark.parametrize("interpolation", ["bilinear", "nearest"])
def test_perspective_transform_matches_keras(interpolation):
    _assert(f"perspective_{interpolation}",
            ops.image.perspective_transform(X, S, E, interpolation, 0.5))
    same = ops.image.perspective_transform(X, S, S, interpolation)
    np.testing.assert_allclose(ops.convert_to_numpy(same), X, atol=1e-5)


def test_elastic_transform_is_seeded_and_alpha_zero_is_the_identity():
    images = np.random.default_rng(3).random((2, 9, 8, 3)).astype("float32")
    a = ops.convert_to_numpy(ops.image.elastic_transform(images, seed=4))
    b = ops.convert_to_numpy(ops.image.elastic_transform(images, seed=4))
    assert a.shape == images.shape and a.dtype == np.float32
    np.testing.assert_array_equal(a, b)
    assert np.abs(a - images).max() > 0.1
    still = ops.image.elastic_transform(images, alpha=0.0, sigma=1.0, seed=4)
    np.testing.assert_allclose(ops.convert_to_numpy(still), images, atol=1e-6)
    first = ops.image.elastic_transform(np.moveaxis(images, -1, 1), seed=4,
                                        data_format="channels_first")
    np.testing.assert_allclose(np.moveaxis(ops.convert_to_numpy(first), 1, -1), a, atol=1e-6)


def test_integer_images_interpolate_in_floats_and_round_back():
    # Keras' NumPy backend (scipy.ndimage.map_coordinates) interpolates a uint8 image and
    # rounds the result into uint8: interpolated values, not the floor taps
    image = RNG.integers(0, 256, (6, 5)).astype("uint8")
    coordinates = [[0.5, 2.5, 4.75], [1.25, 3.5, 0.0]]
    floats = ops.image.map_coordinates(image.astype("float32"), coordinates, 1).numpy()
    values = ops.image.map_coordinates(image, coordinates, 1)
    assert values.dtype == np.uint8
    np.testing.assert_array_equal(values.numpy(), np.floor(floats + 0.5))
    images = RNG.integers(0, 256, (2, 6, 5, 3)).astype("uint8")
    transform = np.array([1, 0.1, 0.5, 0, 1, 0.2, 0, 0], "float32")
    corners = np.array([[0, 0], [4, 0], [0, 5], [4, 5]], "float32")
    moved = np.array([[0, 0], [4, 1], [0, 5], [3, 5]], "float32")
    for op in (lambda x: ops.image.affine_transform(x, transform),
               lambda x: ops.image.perspective_transform(x, corners, moved),
               lambda x: ops.image.elastic_transform(x, alpha=2.0, sigma=1.0, seed=3)):
        result = op(images)
        assert result.dtype == np.uint8
        np.testing.assert_array_equal(result.numpy(),
                                      np.floor(op(images.astype("float32")).numpy() + 0.5))


def test_gradients(check_op):
    x = np.random.default_rng(5).random((2, 3, 4, 2))
    check_op(lambda image: ops.image.affine_transform(image, T, "bilinear", "reflect"), [x])
    check_op(lambda image: ops.image.affine_transform(image, T, "nearest", "constant", 0.5),
             [x])
    check_op(lambda v: ops.image.map_coordinates(v, C, 1, "mirror"), [V.astype("float64")])
    check_op(lambda image: ops.image.perspective_transform(image, S, E), [x])
    check_op(lambda image: ops.image.elastic_transform(image, 3.0, 1.0, seed=2), [x])


def test_bad_arguments():
    with pytest.raises(ValueError, match="interpolation"):
        ops.image.affine_transform(X, T, "bicubic")
    with pytest.raises(ValueError, match="fill_mode"):
        ops.image.affine_transform(X, T, fill_mode="edge")
    with pytest.raises(ValueError, match="transform"):
        ops.image.affine_transform(X, T[:, :6])
    with pytest.raises(ValueError, match="one row per input axis"):
        ops.image.map_coordinates(V, C[:1], 1)
    with pytest.raises(ValueError, match="order"):
        ops.image.map_coordinates(V, C, 3)
    with pytest.raises(ValueError, match="start_points"):
        ops.image.perspective_transform(X, S[:3], E)
    with pytest.raises(ValueError, match="fill_mode"):
        ops.image.elastic_transform(X, fill_mode="edge")
    assert isinstance(ops.image.map_coordinates(lamina.Tensor(V), C, 0), lamina.Tensor)

"""UpSampling, ZeroPadding and Cropping layers (1-D, 2-D, 3-D, channels_first): values,
Keras 3's recorded outputs, gradients, configs, shapes, models and bad arguments."""

import numpy as np
import pytest

from lamina import layers

from harness.keras_references import case_id, check_against_keras, keras_cases
from harness.layers import (  # noqa: F401  (the shared tests of CASES, collected here)
    test_config_round_trip_and_output_shape, test_gradients_match_finite_differences,
    test_inside_sequential_and_functional_models)

RNG = np.random.default_rng(9)


def rand(*shape):
    return RNG.uniform(-1.0, 1.0, size=shape)


def test_upsampling_nearest_repeats_cells():
    x = rand(2, 3, 4, 2).astype("float32")
    got = layers.UpSampling2D((2, 3))(x).numpy()
    np.testing.assert_array_equal(got, x.repeat(2, axis=1).repeat(3, axis=2))
    seq = x[:, 0]
    np.testing.assert_array_equal(layers.UpSampling1D(3)(seq).numpy(), seq.repeat(3, axis=1))


def test_upsampling_bilinear_uses_half_pixel_centres():
    x = np.array([1.0, 2.0], dtype="float32").reshape(1, 1, 2, 1)
    got = layers.UpSampling2D((1, 2), interpolation="bilinear")(x).numpy().reshape(-1)
    np.testing.assert_allclose(got, [1.0, 1.25, 1.75, 2.0], atol=1e-6)  # TF/JAX resize
    # Constant images stay constant; a loop reference for a random one.
    image = rand(1, 3, 4, 2)
    got = layers.UpSampling2D((2, 3), interpolation="bilinear")(image.astype("float32"))
    expected = np.zeros((1, 6, 12, 2))
    for i, j in np.ndindex(6, 12):
        y = min(max((i + 0.5) / 2 - 0.5, 0), 2)
        x_ = min(max((j + 0.5) / 3 - 0.5, 0), 3)
        y0, x0 = int(np.floor(y)), int(np.floor(x_))
        y1, x1 = min(y0 + 1, 2), min(x0 + 1, 3)
        fy, fx = y - y0, x_ - x0
        expected[0, i, j] = ((1 - fy) * ((1 - fx) * image[0, y0, x0] + fx * image[0, y0, x1])
                             + fy * ((1 - fx) * image[0, y1, x0] + fx * image[0, y1, x1]))
    np.testing.assert_allclose(got.numpy(), expected, atol=1e-5)


def test_zero_padding_and_cropping_values():
    x = rand(2, 3, 4, 2).astype("float32")
    np.testing.assert_array_equal(layers.ZeroPadding2D()(x).numpy(),
                                  np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0))))
    np.testing.assert_array_equal(layers.ZeroPadding2D((2, 0))(x).numpy(),
                                  np.pad(x, ((0, 0), (2, 2), (0, 0), (0, 0))))
    np.testing.assert_array_equal(layers.ZeroPadding2D(((0, 1), (2, 3)))(x).numpy(),
                                  np.pad(x, ((0, 0), (0, 1), (2, 3), (0, 0))))
    np.testing.assert_array_equal(layers.Cropping2D(((1, 0), (1, 2)))(x).numpy(),
                                  x[:, 1:, 1:2])
    np.testing.assert_array_equal(layers.Cropping2D(1)(x).numpy(), x[:, 1:2, 1:3])
    np.testing.assert_array_equal(layers.Cropping2D()(x).numpy(), x)
    seq = x[:, 0]
    np.testing.assert_array_equal(layers.ZeroPadding1D((1, 2))(seq).numpy(),
                                  np.pad(seq, ((0, 0), (1, 2), (0, 0))))
    np.testing.assert_array_equal(layers.Cropping1D((0, 2))(seq).numpy(), seq[:, :2])


def test_three_dimensional_values():
    x = rand(2, 2, 3, 2, 2).astype("float32")
    np.testing.assert_array_equal(
        layers.ZeroPadding3D(((1, 0), (0, 2), (1, 1)))(x).numpy(),
        np.pad(x, ((0, 0), (1, 0), (0, 2), (1, 1), (0, 0))))
    np.testing.assert_array_equal(layers.Cropping3D(((1, 0), (0, 1), (0, 1)))(x).numpy(),
                                  x[:, 1:, :2, :1])
    np.testing.assert_array_equal(layers.UpSampling3D((2, 1, 3))(x).numpy(),
                                  x.repeat(2, axis=1).repeat(3, axis=3))


@pytest.mark.parametrize("case", keras_cases("lamina.layers.reshaping"), ids=case_id)
def test_matches_keras(case):
    check_against_keras(case)


@pytest.mark.parametrize("make, shape", [
    (lambda f: layers.ZeroPadding1D((1, 2), data_format=f), (2, 4, 3)),
    (lambda f: layers.ZeroPadding2D(((1, 0), (2, 1)), data_format=f), (2, 3, 4, 3)),
    (lambda f: layers.Cropping2D(((1, 0), (0, 2)), data_format=f), (2, 3, 4, 3)),
    (lambda f: layers.Cropping3D(1, data_format=f), (1, 3, 4, 3, 2)),
    (lambda f: layers.UpSampling2D(2, data_format=f, interpolation="bilinear"), (1, 2, 3, 2)),
    (lambda f: layers.UpSampling3D(2, data_format=f), (1, 2, 1, 2, 2)),
])
def test_channels_first_is_channels_last_transposed(make, shape):
    x = rand(*shape).astype("float32")
    last, first = make("channels_last"), make("channels_first")
    moved = np.moveaxis(x, -1, 1)
    expected = np.moveaxis(last(x).numpy(), -1, 1)
    np.testing.assert_allclose(first(moved).numpy(), expected, atol=1e-6)
    assert first.compute_output_shape((None,) + moved.shape[1:]) == \
        (None,) + expected.shape[1:]


def test_configs_use_keras_forms():
    assert layers.ZeroPadding3D().get_config()["padding"] == [[1, 1]] * 3
    assert layers.Cropping3D().get_config()["cropping"] == [[1, 1]] * 3
    up3 = layers.UpSampling3D().get_config()
    assert up3["size"] == [2, 2, 2] and "interpolation" not in up3
    assert layers.ZeroPadding1D().get_config()["data_format"] == "channels_last"
    assert "data_format" not in layers.Cropping1D().get_config()
    assert "data_format" not in layers.UpSampling1D().get_config()
    assert layers.ZeroPadding2D().get_config()["padding"] == [[1, 1], [1, 1]]
    assert layers.ZeroPadding2D(3).get_config()["padding"] == [[3, 3], [3, 3]]
    assert layers.Cropping2D().get_config()["cropping"] == [[0, 0], [0, 0]]
    assert layers.ZeroPadding1D().get_config()["padding"] == [1, 1]
    up = layers.UpSampling2D().get_config()
    assert up["size"] == [2, 2] and up["interpolation"] == "nearest"
    assert layers.UpSampling1D().get_config()["size"] == 2


CASES = [
    (lambda: layers.UpSampling2D((2, 1)), (2, 2, 3, 2)),
    (lambda: layers.UpSampling2D(2, interpolation="bilinear"), (1, 2, 3, 2)),
    (lambda: layers.UpSampling1D(2), (2, 3, 2)),
    (lambda: layers.ZeroPadding2D(((1, 0), (0, 2))), (2, 2, 3, 2)),
    (lambda: layers.ZeroPadding1D(2), (2, 3, 2)),
    (lambda: layers.Cropping2D(((1, 0), (0, 1))), (2, 3, 3, 2)),
    (lambda: layers.Cropping1D((1, 1)), (2, 4, 2)),
    (lambda: layers.UpSampling3D((1, 2, 1)), (1, 2, 2, 2, 2)),
    (lambda: layers.ZeroPadding3D(((0, 1), (1, 0), (0, 0))), (1, 2, 2, 2, 2)),
    (lambda: layers.Cropping3D(((1, 0), (0, 1), (0, 0))), (1, 3, 3, 2, 2)),
    (lambda: layers.ZeroPadding2D(1, data_format="channels_first"), (1, 2, 2, 3)),
    (lambda: layers.UpSampling2D(2, data_format="channels_first"), (1, 2, 2, 3)),
]
CASE_IDS = ["up2d", "up2d_bilinear", "up1d", "pad2d", "pad1d", "crop2d", "crop1d", "up3d",
            "pad3d", "crop3d", "pad2d_channels_first", "up2d_channels_first"]


def test_bad_arguments_and_inputs():
    with pytest.raises(ValueError, match="Layer 'r0' .*size"):
        layers.UpSampling2D(0, name="r0")
    with pytest.raises(ValueError, match="Layer 'r1' .*interpolation"):
        layers.UpSampling2D(interpolation="cubic-ish", name="r1")
    with pytest.raises(ValueError, match="Layer 'r2' .*padding"):
        layers.ZeroPadding2D(-1, name="r2")
    with pytest.raises(ValueError, match="Layer 'r3' .*padding"):
        layers.ZeroPadding2D((1, 2, 3), name="r3")
    with pytest.raises(ValueError, match="Layer 'r4' .*cropping"):
        layers.Cropping2D(((1, 1), (1,)), name="r4")
    with pytest.raises(ValueError, match="Layer 'r5' .*cannot crop"):
        layers.Cropping2D(2, name="r5")(rand(1, 4, 8, 1).astype("float32"))
    with pytest.raises(ValueError, match="Layer 'r6' expects input of rank 4"):
        layers.ZeroPadding2D(name="r6")(rand(1, 4, 1).astype("float32"))
    with pytest.raises(ValueError, match="Layer 'r7' .*data_format"):
        layers.Cropping2D(data_format="first", name="r7")
    with pytest.raises(ValueError, match="Layer 'r8' .*padding"):
        layers.ZeroPadding3D((1, 2), name="r8")
    with pytest.raises(ValueError, match="Layer 'r9' .*cannot crop"):
        layers.Cropping3D(1, data_format="channels_first", name="r9")(
            rand(1, 4, 2, 4, 4).astype("float32"))

"""Pooling layers: forward against plain-NumPy loops and Keras 3's recorded outputs (3-D,
channels_first, aliases), gradients, configs, shapes, models and bad inputs."""

import numpy as np
import pytest

import lamina
from lamina import layers

from harness.keras_references import case_id, check_against_keras, keras_cases
from harness.layers import (  # noqa: F401  (the shared tests of CASES, collected here)
    test_config_round_trip_and_output_shape, test_gradients_match_finite_differences,
    test_inside_sequential_and_functional_models)

RNG = np.random.default_rng(5)


def rand(*shape):
    return RNG.uniform(-1.0, 1.0, size=shape)


def reference_pool(x, pool_size, strides, padding, mode):
    """Loop over output cells; windows clipped to the input, average over real cells."""
    rank = x.ndim - 2
    geometry = []
    for n, k, s in zip(x.shape[1:-1], pool_size, strides):
        if padding == "valid":
            geometry.append(((n - k) // s + 1, 0))
        else:
            out = -(-n // s)
            geometry.append((out, max((out - 1) * s + k - n, 0) // 2))
    out = np.zeros((x.shape[0],) + tuple(o for o, _ in geometry) + (x.shape[-1],))
    for position in np.ndindex(*out.shape[1:-1]):
        window = []
        for axis in range(rank):
            start = position[axis] * strides[axis] - geometry[axis][1]
            window.append(slice(max(start, 0), min(start + pool_size[axis], x.shape[axis + 1])))
        cells = x[(slice(None),) + tuple(window)].reshape(x.shape[0], -1, x.shape[-1])
        out[(slice(None),) + position] = cells.max(axis=1) if mode == "max" \
            else cells.mean(axis=1)
    return out


@pytest.mark.parametrize("cls, mode", [(layers.MaxPooling2D, "max"),
                                       (layers.AveragePooling2D, "average")])
@pytest.mark.parametrize("pool_size, strides, padding", [
    ((2, 2), None, "valid"), ((3, 3), (2, 2), "valid"), ((3, 2), (2, 1), "same"),
    ((2, 2), None, "same"), ((3, 3), (1, 1), "same")])
def test_pooling2d_matches_loop_reference(cls, mode, pool_size, strides, padding):
    x = rand(2, 7, 6, 3).astype("float32")
    layer = cls(pool_size, strides=strides, padding=padding)
    got = layer(x).numpy()
    expected = reference_pool(x.astype("float64"), pool_size, strides or pool_size, padding,
                              mode)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, expected, atol=1e-6)


@pytest.mark.parametrize("cls, mode", [(layers.MaxPooling1D, "max"),
                                       (layers.AveragePooling1D, "average")])
@pytest.mark.parametrize("padding", ["valid", "same"])
def test_pooling1d_matches_loop_reference(cls, mode, padding):
    x = rand(2, 9, 3)
    got = cls(pool_size=4, strides=3, padding=padding)(x.astype("float32")).numpy()
    np.testing.assert_allclose(got, reference_pool(x, (4,), (3,), padding, mode), atol=1e-6)


@pytest.mark.parametrize("cls, mode", [(layers.MaxPooling3D, "max"),
                                       (layers.AveragePooling3D, "average")])
@pytest.mark.parametrize("padding", ["valid", "same"])
def test_pooling3d_matches_loop_reference(cls, mode, padding):
    x = rand(2, 5, 4, 3, 2)
    got = cls((2, 3, 2), strides=(2, 1, 1), padding=padding)(x.astype("float32")).numpy()
    np.testing.assert_allclose(got, reference_pool(x, (2, 3, 2), (2, 1, 1), padding, mode),
                               atol=1e-6)


@pytest.mark.parametrize("case", keras_cases("lamina.layers.pooling"), ids=case_id)
def test_matches_keras(case):
    check_against_keras(case)


@pytest.mark.parametrize("make", [
    lambda f: layers.MaxPooling2D(3, strides=2, padding="same", data_format=f),
    lambda f: layers.AveragePooling1D(2, data_format=f),
    lambda f: layers.AveragePooling3D(2, data_format=f),
    lambda f: layers.GlobalAveragePooling2D(data_format=f, keepdims=True),
    lambda f: layers.GlobalMaxPooling3D(data_format=f),
])
def test_channels_first_is_channels_last_transposed(make):
    last, first = make("channels_last"), make("channels_first")
    spatial = (7, 6, 4)[:last.rank]
    x = rand(2, *spatial, 3).astype("float32")
    expected = last(x).numpy()
    expected = expected if expected.ndim == 2 else np.moveaxis(expected, -1, 1)
    moved = np.moveaxis(x, -1, 1)
    np.testing.assert_allclose(first(moved).numpy(), expected, atol=1e-6)
    assert first.compute_output_shape(moved.shape) == expected.shape


def test_global_average_pooling1d_channels_first_with_mask():
    x = rand(2, 5, 3).astype("float32")
    mask = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], dtype=bool)
    layer = layers.GlobalAveragePooling1D(data_format="channels_first")
    np.testing.assert_allclose(layer(np.moveaxis(x, -1, 1), mask=mask).numpy(),
                               layers.GlobalAveragePooling1D()(x, mask=mask).numpy(),
                               atol=1e-6)


def test_keras_aliases_are_the_same_classes_and_deserialize():
    for alias, name in [("MaxPool", "MaxPooling"), ("AvgPool", "AveragePooling"),
                        ("GlobalMaxPool", "GlobalMaxPooling"),
                        ("GlobalAvgPool", "GlobalAveragePooling")]:
        for rank in ("1D", "2D", "3D"):
            cls = getattr(layers, name + rank)
            assert getattr(layers, alias + rank) is cls
            assert layers.get(alias + rank) is cls
    config = layers.MaxPool3D(name="m3").get_config()
    assert config["pool_size"] == [2, 2, 2] and config["strides"] == [2, 2, 2]
    assert layers.get("MaxPool3D").from_config(config).get_config() == config


def test_global_pooling_values():
    x = rand(2, 4, 5, 3).astype("float32")
    np.testing.assert_allclose(layers.GlobalAveragePooling2D()(x).numpy(), x.mean(axis=(1, 2)),
                               atol=1e-6)
    np.testing.assert_allclose(layers.GlobalMaxPooling2D()(x).numpy(), x.max(axis=(1, 2)))
    kept = layers.GlobalMaxPooling2D(keepdims=True)(x).numpy()
    assert kept.shape == (2, 1, 1, 3)
    seq = x[:, 0]
    np.testing.assert_allclose(layers.GlobalAveragePooling1D()(seq).numpy(), seq.mean(axis=1),
                               atol=1e-6)
    np.testing.assert_allclose(layers.GlobalMaxPooling1D(keepdims=True)(seq).numpy(),
                               seq.max(axis=1, keepdims=True))


def test_global_average_pooling1d_mask_averages_unmasked_steps():
    x = rand(2, 5, 3).astype("float32")
    mask = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], dtype=bool)
    got = layers.GlobalAveragePooling1D()(x, mask=mask).numpy()
    np.testing.assert_allclose(got[0], x[0, :3].mean(axis=0), atol=1e-6)
    np.testing.assert_allclose(got[1], x[1].mean(axis=0), atol=1e-6)


def test_defaults_and_config():
    config = layers.MaxPooling2D().get_config()
    assert config["pool_size"] == [2, 2] and config["strides"] == [2, 2]
    assert config["padding"] == "valid" and config["data_format"] == "channels_last"
    assert layers.AveragePooling1D().get_config()["pool_size"] == [2]
    assert layers.MaxPooling2D(3, strides=1).get_config()["strides"] == [1, 1]
    assert layers.GlobalAveragePooling2D().get_config()["keepdims"] is False
    assert layers.MaxPooling2D().name.startswith("max_pooling2d")


CASES = [
    (lambda: layers.MaxPooling2D((2, 3), strides=(1, 2), padding="same"), (2, 4, 5, 2)),
    (lambda: layers.AveragePooling2D(3, strides=2, padding="same"), (2, 5, 4, 2)),
    (lambda: layers.MaxPooling1D(3, strides=2), (2, 7, 2)),
    (lambda: layers.AveragePooling1D(2, padding="same"), (2, 5, 3)),
    (lambda: layers.GlobalAveragePooling1D(), (2, 4, 3)),
    (lambda: layers.GlobalAveragePooling2D(keepdims=True), (2, 3, 4, 2)),
    (lambda: layers.GlobalMaxPooling1D(), (2, 4, 3)),
    (lambda: layers.GlobalMaxPooling2D(), (2, 3, 4, 2)),
    (lambda: layers.MaxPooling3D((2, 2, 1), padding="same"), (1, 3, 3, 2, 2)),
    (lambda: layers.AveragePooling3D(2, strides=1), (1, 3, 3, 3, 2)),
    (lambda: layers.GlobalAveragePooling3D(), (2, 2, 3, 2, 2)),
    (lambda: layers.GlobalMaxPooling3D(keepdims=True), (2, 2, 3, 2, 2)),
    (lambda: layers.MaxPooling2D(2, data_format="channels_first"), (2, 2, 4, 4)),
    (lambda: layers.GlobalAveragePooling2D(data_format="channels_first"), (2, 2, 3, 4)),
]
CASE_IDS = ["max2d", "avg2d", "max1d", "avg1d", "gap1d", "gap2d", "gmp1d", "gmp2d", "max3d",
            "avg3d", "gap3d", "gmp3d", "max2d_channels_first", "gap2d_channels_first"]


def test_bad_arguments_and_inputs():
    with pytest.raises(ValueError, match="Layer 'p0' .*pool_size"):
        layers.MaxPooling2D(0, name="p0")
    with pytest.raises(ValueError, match="Layer 'p1' .*strides"):
        layers.AveragePooling2D(2, strides=(1, -1), name="p1")
    with pytest.raises(ValueError, match="Layer 'p2' .*padding"):
        layers.MaxPooling1D(2, padding="causal", name="p2")
    with pytest.raises(ValueError, match="Layer 'p3' .*data_format"):
        layers.GlobalMaxPooling2D(data_format="NHWC", name="p3")
    with pytest.raises(ValueError, match="Layer 'p7' expects input of rank 5"):
        layers.MaxPooling3D(name="p7")(rand(2, 4, 4, 4).astype("float32"))
    with pytest.raises(ValueError, match="Layer 'p4' expects input of rank 4"):
        layers.MaxPooling2D(name="p4")(rand(2, 4, 4).astype("float32"))
    with pytest.raises(ValueError, match="Layer 'p5' .*larger than"):
        layers.MaxPooling2D(5, name="p5")(rand(1, 4, 8, 1).astype("float32"))
    layer = layers.AveragePooling1D(4, name="p6")
    layer(rand(1, 8, 1).astype("float32"))
    with pytest.raises(ValueError, match="Layer 'p6' .*larger than"):
        layer(rand(1, 3, 1).astype("float32"))


def test_cnn_with_pooling_predicts_in_a_model():
    model = lamina.Sequential([lamina.Input((8, 8, 1)), layers.Conv2D(2, 3, padding="same"),
                               layers.MaxPooling2D(), layers.AveragePooling2D(),
                               layers.GlobalMaxPooling2D()])
    assert model.predict(rand(3, 8, 8, 1).astype("float32"), verbose=0).shape == (3, 2)

"""Transposed convolution layers (Conv1D/2D/3DTranspose): forward against a plain-NumPy
scatter and Keras 3's recorded outputs, aliases, gradients, configs, models and bad
arguments."""

import numpy as np
import pytest

from lamina import layers

from harness.conv_references import reference_conv_transpose
from harness.keras_references import case_id, check_against_keras, keras_cases
from harness.layers import (  # noqa: F401  (the shared tests of CASES, collected here)
    test_config_round_trip_and_output_shape, test_gradients_match_finite_differences,
    test_inside_sequential_and_functional_models)

RNG = np.random.default_rng(7)


def rand(*shape):
    return RNG.uniform(-1.0, 1.0, size=shape)


@pytest.mark.parametrize("padding", ["valid", "same"])
@pytest.mark.parametrize("strides, kernel_size", [((1, 1), (3, 3)), ((2, 2), (3, 3)),
                                                  ((2, 2), (2, 2)), ((3, 2), (2, 3))])
def test_conv2d_transpose_matches_scatter_reference(padding, strides, kernel_size):
    x = rand(2, 3, 4, 3).astype("float32")
    layer = layers.Conv2DTranspose(2, kernel_size, strides=strides, padding=padding,
                                   bias_initializer="random_normal")
    got = layer(x).numpy()
    kernel, bias = layer.get_weights()
    assert kernel.shape == kernel_size + (2, 3)
    expected = reference_conv_transpose(x, kernel, strides, padding, (1, 1)) + bias
    assert got.shape == expected.shape
    assert layer.compute_output_shape((None, 3, 4, 3)) == (None,) + expected.shape[1:]
    np.testing.assert_allclose(got, expected, atol=1e-5)


@pytest.mark.parametrize("make, shape, strides, dilation", [
    (lambda: layers.Conv1DTranspose(3, 3, strides=2, padding="same"), (2, 5, 2), (2,), (1,)),
    (lambda: layers.Conv1DTranspose(2, 2, dilation_rate=2), (2, 4, 3), (1,), (2,)),
    (lambda: layers.Conv3DTranspose(2, (2, 3, 2), strides=(2, 1, 2)), (1, 3, 2, 2, 2),
     (2, 1, 2), (1, 1, 1)),
])
def test_1d_and_3d_match_scatter_reference(make, shape, strides, dilation):
    x = rand(*shape).astype("float32")
    layer = make()
    got = layer(x).numpy()
    kernel, bias = layer.get_weights()
    expected = reference_conv_transpose(x, kernel, strides, layer.padding, dilation) + bias
    np.testing.assert_allclose(got, expected, atol=1e-5)


@pytest.mark.parametrize("case", keras_cases("lamina.layers.convolution_transpose"),
                         ids=case_id)
def test_matches_keras(case):
    check_against_keras(case)


def test_keras_aliases_and_defaults():
    assert layers.Convolution1DTranspose is layers.Conv1DTranspose
    assert layers.Convolution2DTranspose is layers.Conv2DTranspose
    assert layers.Convolution3DTranspose is layers.Conv3DTranspose
    assert layers.get("Convolution3DTranspose") is layers.Conv3DTranspose
    config = layers.Conv3DTranspose(2, 3).get_config()
    assert config["strides"] == [1, 1, 1] and config["output_padding"] is None
    layer = layers.Conv1DTranspose(4, 3, name="t1")
    layer.build((None, 5, 2))
    assert [(w.name, w.shape) for w in layer.weights] == [("kernel", (3, 4, 2)),
                                                          ("bias", (4,))]


CASES = [
    (lambda: layers.Conv2DTranspose(2, 3, strides=2, padding="same"), (2, 3, 3, 2)),
    (lambda: layers.Conv2DTranspose(2, 2, strides=1, padding="valid"), (1, 3, 2, 2)),
    (lambda: layers.Conv1DTranspose(2, 3, strides=2, bias_initializer="random_normal"),
     (2, 3, 2)),
    (lambda: layers.Conv3DTranspose(2, 2, strides=(2, 1, 1), padding="same"),
     (1, 2, 2, 2, 2)),
    (lambda: layers.Conv2DTranspose(2, 2, strides=2, data_format="channels_first"),
     (1, 2, 3, 2)),
]
CASE_IDS = ["2d_same", "2d_valid", "1d", "3d", "2d_channels_first"]


@pytest.mark.parametrize("make, message", [
    (lambda: layers.Conv2DTranspose(4, 3, output_padding=1, name="t0"),
     r"Layer 't0' \(Conv2DTranspose\) supports only output_padding=None"),
    (lambda: layers.Conv1DTranspose(0, 3, name="t1"), "Layer 't1' .*filters"),
    (lambda: layers.Conv3DTranspose(2, (2, 2), name="t2"), "Layer 't2' .*kernel_size"),
    (lambda: layers.Conv1DTranspose(2, 2, padding="causal", name="t3"),
     "Layer 't3' .*padding"),
])
def test_bad_arguments_raise_value_error_naming_the_layer(make, message):
    with pytest.raises(ValueError, match=message):
        make()

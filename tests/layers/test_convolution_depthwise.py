"""Depthwise and separable convolution layers (DepthwiseConv1D/2D, SeparableConv1D/2D):
forward against plain-NumPy loops and Keras 3's recorded outputs, Keras' weight names,
aliases, gradients, configs, models and bad arguments."""

import numpy as np
import pytest

from lamina import layers

from harness.conv_references import reference_depthwise
from harness.keras_references import case_id, check_against_keras, keras_cases
from harness.layers import (  # noqa: F401  (the shared tests of CASES, collected here)
    test_config_round_trip_and_output_shape, test_gradients_match_finite_differences,
    test_inside_sequential_and_functional_models)

RNG = np.random.default_rng(9)


def rand(*shape):
    return RNG.uniform(-1.0, 1.0, size=shape)


def test_depthwise_and_separable_match_reference():
    x = rand(2, 6, 5, 3).astype("float32")
    depthwise = layers.DepthwiseConv2D(3, depth_multiplier=2, padding="same", strides=2,
                                       bias_initializer="random_normal")
    got = depthwise(x).numpy()
    kernel, bias = depthwise.get_weights()
    assert kernel.shape == (3, 3, 3, 2) and bias.shape == (6,)
    expected = reference_depthwise(x, kernel, (2, 2), "same", (1, 1)) + bias
    np.testing.assert_allclose(got, expected, atol=1e-5)

    separable = layers.SeparableConv2D(4, 2, depth_multiplier=2, dilation_rate=2,
                                       bias_initializer="random_normal")
    got = separable(x).numpy()
    depth_kernel, point_kernel, bias = separable.get_weights()
    assert depth_kernel.shape == (2, 2, 3, 2) and point_kernel.shape == (1, 1, 6, 4)
    depth = reference_depthwise(x, depth_kernel, (1, 1), "valid", (2, 2))
    np.testing.assert_allclose(got, depth @ point_kernel[0, 0] + bias, atol=1e-5)


def test_one_dimensional_forms_match_reference():
    x = rand(2, 7, 3).astype("float32")
    depthwise = layers.DepthwiseConv1D(3, depth_multiplier=2, strides=2,
                                       bias_initializer="random_normal")
    got = depthwise(x).numpy()
    kernel, bias = depthwise.get_weights()
    np.testing.assert_allclose(got,
                               reference_depthwise(x, kernel, (2,), "valid", (1,)) + bias,
                               atol=1e-5)
    separable = layers.SeparableConv1D(4, 2, padding="same", use_bias=False)
    separable(x)
    depth_kernel, point_kernel = separable.get_weights()
    assert point_kernel.shape == (1, 3, 4)
    expected = reference_depthwise(x, depth_kernel, (1,), "same", (1,)) @ point_kernel[0]
    np.testing.assert_allclose(separable(x).numpy(), expected, atol=1e-5)


@pytest.mark.parametrize("case", keras_cases("lamina.layers.convolution_depthwise"),
                         ids=case_id)
def test_matches_keras(case):
    check_against_keras(case)


def test_keras_weight_names_and_aliases():
    separable = layers.SeparableConv2D(8, 3)
    separable.build((None, 10, 10, 3))
    assert [w.name for w in separable.weights] == ["depthwise_kernel", "pointwise_kernel",
                                                   "bias"]
    depthwise = layers.DepthwiseConv2D(3)
    depthwise.build((None, 10, 10, 3))
    assert [w.name for w in depthwise.weights] == ["kernel", "bias"]   # as Keras 3
    assert depthwise.kernel is depthwise.weights[0]
    assert layers.SeparableConvolution1D is layers.SeparableConv1D
    assert layers.SeparableConvolution2D is layers.SeparableConv2D
    assert layers.get("SeparableConvolution2D") is layers.SeparableConv2D
    config = layers.DepthwiseConv1D(3).get_config()
    assert config["kernel_size"] == [3] and config["depth_multiplier"] == 1
    assert "depthwise_initializer" in config and "kernel_initializer" not in config


CASES = [
    (lambda: layers.DepthwiseConv2D(2, depth_multiplier=2, strides=2, padding="same"),
     (2, 4, 5, 2)),
    (lambda: layers.SeparableConv2D(3, 2, depth_multiplier=2, padding="same"), (2, 3, 4, 2)),
    (lambda: layers.DepthwiseConv1D(3, dilation_rate=2, bias_initializer="random_normal"),
     (2, 7, 2)),
    (lambda: layers.SeparableConv1D(2, 2, strides=2, data_format="channels_first"),
     (2, 2, 5)),
]
CASE_IDS = ["depthwise2d", "separable2d", "depthwise1d", "separable1d_channels_first"]


@pytest.mark.parametrize("make, message", [
    (lambda: layers.DepthwiseConv2D(3, depth_multiplier=0, name="d0"),
     r"Layer 'd0' \(DepthwiseConv2D\) needs a positive int depth_multiplier"),
    (lambda: layers.SeparableConv1D(0, 3, name="d1"), "Layer 'd1' .*filters"),
    (lambda: layers.DepthwiseConv1D((3, 3), name="d2"), "Layer 'd2' .*kernel_size"),
    (lambda: layers.SeparableConv2D(2, 3, data_format="nhwc", name="d3"),
     "Layer 'd3' .*data_format"),
])
def test_bad_arguments_raise_value_error_naming_the_layer(make, message):
    with pytest.raises(ValueError, match=message):
        make()

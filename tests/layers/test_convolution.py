"""Convolution layers (Conv1D/2D/3D and the shared base): forward against plain-NumPy
loops and Keras 3's recorded outputs, channels_first, aliases, gradients against finite
differences (float64), configs, output shapes, models, and bad arguments/inputs."""

import numpy as np
import pytest

import lamina
from lamina import layers

from harness.conv_references import reference_conv
from harness.keras_references import case_id, check_against_keras, keras_cases
from harness.layers import (  # noqa: F401  (the shared tests of CASES, collected here)
    test_config_round_trip_and_output_shape, test_gradients_match_finite_differences,
    test_inside_sequential_and_functional_models)

RNG = np.random.default_rng(3)


def rand(*shape):
    return RNG.uniform(-1.0, 1.0, size=shape)


def run(layer, x):
    return layer(x).numpy()


# ------------------------------------------------------------------ forward
@pytest.mark.parametrize("padding", ["valid", "same"])
@pytest.mark.parametrize("strides, dilation", [((1, 1), (1, 1)), ((2, 2), (1, 1)),
                                               ((1, 2), (1, 1)), ((1, 1), (2, 2)),
                                               ((2, 1), (1, 2))])
def test_conv2d_matches_loop_reference(padding, strides, dilation):
    x = rand(2, 7, 6, 3).astype("float32")
    layer = layers.Conv2D(4, (3, 2), strides=strides, padding=padding,
                          dilation_rate=dilation, bias_initializer="random_normal")
    got = run(layer, x)
    kernel, bias = layer.get_weights()
    expected = reference_conv(x.astype("float64"), kernel, strides, padding, dilation) + bias
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, expected, atol=1e-5)


def test_conv2d_groups_and_activation():
    x = rand(2, 5, 5, 4).astype("float32")
    layer = layers.Conv2D(6, 3, groups=2, activation="relu", padding="same")
    got = run(layer, x)
    kernel, bias = layer.get_weights()
    assert kernel.shape == (3, 3, 2, 6)
    expected = np.maximum(reference_conv(x, kernel, (1, 1), "same", (1, 1), groups=2) + bias, 0)
    np.testing.assert_allclose(got, expected, atol=1e-5)


@pytest.mark.parametrize("padding", ["valid", "same", "causal"])
def test_conv1d_matches_loop_reference(padding):
    x = rand(2, 9, 3).astype("float32")
    layer = layers.Conv1D(5, 3, padding=padding, dilation_rate=2, activation="tanh")
    got = run(layer, x)
    kernel, bias = layer.get_weights()
    assert kernel.shape == (3, 3, 5)
    expected = np.tanh(reference_conv(x, kernel, (1,), padding, (2,)) + bias)
    np.testing.assert_allclose(got, expected, atol=1e-5)
    if padding == "causal":
        # Output t depends only on inputs <= t.
        changed = x.copy()
        changed[:, 6:] += 1.0
        np.testing.assert_allclose(run(layer, changed)[:, :6], got[:, :6], atol=1e-6)


def test_conv3d_matches_loop_reference():
    x = rand(2, 4, 5, 3, 2).astype("float32")
    layer = layers.Conv3D(3, (2, 3, 2), strides=(1, 2, 1), padding="same", groups=1,
                          dilation_rate=1, bias_initializer="random_normal")
    got = run(layer, x)
    kernel, bias = layer.get_weights()
    assert kernel.shape == (2, 3, 2, 2, 3)
    expected = reference_conv(x, kernel, (1, 2, 1), "same", (1, 1, 1)) + bias
    np.testing.assert_allclose(got, expected, atol=1e-5)


@pytest.mark.parametrize("case", keras_cases("lamina.layers.convolution"), ids=case_id)
def test_matches_keras(case):
    check_against_keras(case)


@pytest.mark.parametrize("make, shape", [
    (lambda f: layers.Conv1D(3, 3, padding="causal", data_format=f), (2, 7, 2)),
    (lambda f: layers.Conv2D(3, 2, strides=2, padding="same", data_format=f), (2, 5, 4, 2)),
    (lambda f: layers.Conv3D(2, 2, data_format=f), (1, 3, 4, 3, 2)),
])
def test_channels_first_is_channels_last_transposed(make, shape):
    x = rand(*shape).astype("float32")
    last, first = make("channels_last"), make("channels_first")
    moved = np.moveaxis(x, -1, 1)
    first(moved)
    last(x)
    first.set_weights(last.get_weights())       # the same weight shapes in both layouts
    np.testing.assert_allclose(first(moved).numpy(), np.moveaxis(last(x).numpy(), -1, 1),
                               atol=1e-6)
    assert first.compute_output_shape((None,) + moved.shape[1:]) == \
        (None,) + np.moveaxis(last(x).numpy(), -1, 1).shape[1:]
    assert first.get_config()["data_format"] == "channels_first"


def test_keras_aliases_are_the_same_classes_and_deserialize():
    assert layers.Convolution1D is layers.Conv1D
    assert layers.Convolution2D is layers.Conv2D and layers.Convolution3D is layers.Conv3D
    config = layers.Conv2D(2, 3, name="aliased").get_config()
    rebuilt = layers.get("Convolution2D").from_config(config)
    assert type(rebuilt) is layers.Conv2D and rebuilt.get_config() == config


def test_weight_names_order_and_defaults():
    conv = layers.Conv2D(8, 3)
    conv.build((None, 10, 10, 3))
    assert [w.name for w in conv.weights] == ["kernel", "bias"]
    assert [w.shape for w in conv.weights] == [(3, 3, 3, 8), (8,)]
    assert conv.name.startswith("conv2d")
    no_bias = layers.Conv1D(8, 5, use_bias=False)
    no_bias.build((None, 20, 4))
    assert [w.shape for w in no_bias.weights] == [(5, 4, 8)]
    conv3d = layers.Conv3D(4, 2)
    conv3d.build((None, 5, 5, 5, 2))
    assert [w.shape for w in conv3d.weights] == [(2, 2, 2, 2, 4), (4,)]
    assert conv3d.get_config()["strides"] == [1, 1, 1]
    config = layers.Conv2D(8, 3).get_config()
    assert config["kernel_size"] == [3, 3] and config["strides"] == [1, 1]
    assert config["dilation_rate"] == [1, 1] and config["padding"] == "valid"
    assert config["kernel_initializer"]["class_name"] == "GlorotUniform"
    assert layers.Conv1D(2, 5).get_config()["kernel_size"] == [5]


def test_kernel_regularizer_and_activity_regularizer_add_losses():
    layer = layers.Conv2D(2, 2, kernel_regularizer="l2", activity_regularizer="l1")
    layer(rand(2, 4, 4, 1).astype("float32"))
    assert len(layer.losses) == 2


# ------------------------------------------------------------------ gradients
CASES = [
    (lambda: layers.Conv1D(3, 3, padding="causal", dilation_rate=2,
                           bias_initializer="random_normal"), (2, 7, 2)),
    (lambda: layers.Conv1D(4, 2, strides=2, padding="same", groups=2, activation="tanh"),
     (2, 7, 2)),
    (lambda: layers.Conv2D(3, (2, 3), strides=(2, 1), padding="same"), (2, 5, 4, 2)),
    (lambda: layers.Conv2D(2, 2, dilation_rate=2, activation="sigmoid",
                           bias_initializer="random_normal"), (2, 5, 5, 2)),
    (lambda: layers.Conv3D(2, 2, strides=(1, 2, 1), padding="same", groups=2), (1, 3, 3, 2, 2)),
    (lambda: layers.Conv2D(2, 2, data_format="channels_first"), (2, 2, 3, 3)),
]
CASE_IDS = ["conv1d_causal", "conv1d_groups", "conv2d_same", "conv2d_dilated", "conv3d",
            "conv2d_channels_first"]


def test_unknown_spatial_sizes_in_functional_model():
    inputs = lamina.Input((None, None, 3))
    outputs = layers.Conv2D(4, 3, padding="same", strides=2)(inputs)
    assert outputs.shape == (None, None, None, 4)
    model = lamina.Model(inputs, outputs)
    assert model.predict(rand(2, 7, 5, 3).astype("float32"), verbose=0).shape == (2, 4, 3, 4)


# ------------------------------------------------------------------ bad arguments and inputs
@pytest.mark.parametrize("make, message", [
    (lambda: layers.Conv2D(0, 3, name="c0"),
     r"Layer 'c0' \(Conv2D\) needs a positive int filters"),
    (lambda: layers.Conv2D(-4, 3, name="c1"), "Layer 'c1' .*filters"),
    (lambda: layers.Conv2D(4, 0, name="c2"), "Layer 'c2' .*kernel_size"),
    (lambda: layers.Conv2D(4, (3, -1), name="c3"), "Layer 'c3' .*kernel_size"),
    (lambda: layers.Conv2D(4, (3, 3, 3), name="c4"), "Layer 'c4' .*kernel_size"),
    (lambda: layers.Conv1D(4, 3, strides=0, name="c5"), "Layer 'c5' .*strides"),
    (lambda: layers.Conv2D(4, 3, padding="causal", name="c6"), "Layer 'c6' .*padding"),
    (lambda: layers.Conv2D(4, 3, groups=3, name="c7"), "Layer 'c7' .*groups"),
    (lambda: layers.Conv2D(4, 3, data_format="channels_middle", name="c8"),
     "Layer 'c8' .*data_format 'channels_last' or 'channels_first'"),
    (lambda: layers.Conv3D(4, (3, 3), name="c9"), "Layer 'c9' .*kernel_size"),
    (lambda: layers.Conv3D(4, 3, padding="causal", name="c10"), "Layer 'c10' .*padding"),
])
def test_bad_arguments_raise_value_error_naming_the_layer(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_wrong_input_rank_is_reported_with_the_layer_name():
    layer = layers.Conv2D(2, 3, name="conv_rank")
    with pytest.raises(ValueError, match=r"Layer 'conv_rank' expects input of rank 4, got "
                                         r"input of shape \(2, 8, 8\)"):
        layer(rand(2, 8, 8).astype("float32"))
    layer(rand(2, 8, 8, 1).astype("float32"))
    with pytest.raises(ValueError, match="Layer 'conv_rank' expects input of rank 4"):
        layer(rand(2, 8, 8, 1, 1).astype("float32"))
    with pytest.raises(ValueError, match="Layer 'conv_rank' expects input of shape"):
        layer(rand(2, 8, 8, 3).astype("float32"))


def test_kernel_larger_than_valid_input_is_reported_with_the_layer_name():
    with pytest.raises(ValueError, match="Layer 'too_big' .*larger than"):
        layers.Conv2D(2, 5, name="too_big")(rand(1, 3, 8, 1).astype("float32"))
    with pytest.raises(ValueError, match="Layer 'too_big_sym' .*larger than"):
        layers.Conv2D(2, 5, name="too_big_sym")(lamina.Input((8, 3, 1)))
    # Built on a large input, later called on a smaller one.
    layer = layers.Conv1D(2, 4, dilation_rate=2, name="later")
    layer(rand(1, 10, 1).astype("float32"))
    with pytest.raises(ValueError, match="Layer 'later' .*larger than"):
        layer(rand(1, 6, 1).astype("float32"))
    # 'same' padding accepts it.
    assert layers.Conv2D(2, 5, padding="same")(rand(1, 3, 3, 1).astype("float32")).shape == \
        (1, 3, 3, 2)


def test_trains_on_a_tiny_problem():
    lamina.utils.set_random_seed(0)
    x = RNG.standard_normal((64, 6, 6, 1)).astype("float32")
    y = (x[:, :3].sum(axis=(1, 2, 3)) > x[:, 3:].sum(axis=(1, 2, 3))).astype("int32")
    model = lamina.Sequential([lamina.Input((6, 6, 1)),
                               layers.Conv2D(4, 3, padding="same", activation="relu"),
                               layers.GlobalAveragePooling2D(), layers.Dense(2)])
    model.compile(lamina.optimizers.Adam(0.01),
                  lamina.losses.SparseCategoricalCrossentropy(from_logits=True))
    history = model.fit(x, y, epochs=15, batch_size=16, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]


def test_data_format_none_reads_lamina_config_image_data_format():
    lamina.config.set_image_data_format("channels_first")
    try:
        conv = layers.Conv2D(4, 3)
        explicit = layers.Conv2D(4, 3, data_format="channels_last")
        pooled = layers.MaxPooling2D()
        others = [layers.UpSampling2D(), layers.ZeroPadding2D(), layers.Flatten(),
                  layers.GlobalAveragePooling2D(), layers.SpatialDropout2D(0.5),
                  layers.Conv2DTranspose(2, 3), layers.DepthwiseConv2D(3)]
    finally:
        lamina.config.set_image_data_format("channels_last")
    assert conv.data_format == "channels_first"
    assert conv.get_config()["data_format"] == "channels_first"
    assert explicit.data_format == "channels_last" and pooled.data_format == "channels_first"
    assert [layer.data_format for layer in others] == ["channels_first"] * len(others)
    # (batch, channels, height, width) in, channels first out, as Keras
    assert conv(np.zeros((1, 2, 8, 8), "float32")).shape == (1, 4, 6, 6)
    assert layers.Conv2D(4, 3).data_format == "channels_last"


# ------------------------------------------------------------------ convolution_op
class StandardizedConv2D(layers.Conv2D):
    """The keras.io recipe's weight-standardized convolution (overrides convolution_op)."""

    def convolution_op(self, inputs, kernel):
        mean, var = lamina.ops.moments(kernel, axes=[0, 1, 2], keepdims=True)
        return lamina.ops.conv(inputs, (kernel - mean) / lamina.ops.sqrt(var + 1e-10),
                               strides=list(self.strides), padding="valid")


def _convolution_op_inputs():
    x = np.sin(np.arange(18, dtype="float32")).reshape(1, 3, 3, 2)
    kernel = np.cos(np.arange(16, dtype="float32") * 0.7).reshape(2, 2, 2, 2)
    return x, kernel, np.array([0.5, -0.25], "float32")


def test_overridden_convolution_op_gets_bias_and_activation_as_keras():
    # Keras 3.15 (torch), the same subclass, weights and input:
    #   layer = Standardized(2, 2, activation="relu"); layer.build(x.shape)
    #   layer.set_weights([kernel, bias]); layer(x)
    x, kernel, bias = _convolution_op_inputs()
    layer = StandardizedConv2D(2, 2, activation="relu")
    layer.build(x.shape)
    layer.set_weights([kernel, bias])
    expected = [[[[0.0, 0.0], [6.379394, 4.262282]], [[0.0, 0.0], [6.354654, 3.676143]]]]
    np.testing.assert_allclose(layer(x).numpy(), expected, atol=1e-5)
    model = lamina.Sequential([lamina.Input((3, 3, 2)), layer])   # and in a model
    np.testing.assert_allclose(model.predict(x, verbose=0), expected, atol=1e-5)


def test_convolution_op_takes_the_layers_data_format_without_bias():
    # Keras 3.15 (torch): layers.Conv2D(2, 2, data_format="channels_first")
    #   .convolution_op(np.moveaxis(x, -1, 1), kernel)
    x, kernel, _ = _convolution_op_inputs()
    layer = layers.Conv2D(2, 2, data_format="channels_first")
    layer.build((1, 2, 3, 3))
    expected = [[[[-1.401533, 4.407412], [-2.520829, 4.364798]],
                 [[-2.562235, 3.197626], [-3.115122, 2.691825]]]]
    got = layer.convolution_op(np.moveaxis(x, -1, 1), kernel)
    np.testing.assert_allclose(got.numpy(), expected, atol=1e-5)

"""Convolution layers: forward against plain-NumPy loops, gradients against finite
differences (float64), configs, output shapes, models, and bad arguments/inputs."""

import numpy as np
import pytest

import lamina
from lamina import layers

from harness.layers import (  # noqa: F401  (the shared tests of CASES, collected here)
    test_config_round_trip_and_output_shape, test_gradients_match_finite_differences,
    test_inside_sequential_and_functional_models)

RNG = np.random.default_rng(3)


def rand(*shape):
    return RNG.uniform(-1.0, 1.0, size=shape)


# ------------------------------------------------------------------ plain-NumPy references
def same_pads(n, k, s, d):
    """TF/Keras 'same' rule for one axis: (out, before)."""
    effective = (k - 1) * d + 1
    out = -(-n // s)
    total = max((out - 1) * s + effective - n, 0)
    return out, total // 2


def reference_conv(x, kernel, strides, padding, dilation, groups=1):
    """N-d cross-correlation with an explicit loop over output positions and taps."""
    rank = x.ndim - 2
    ksize = kernel.shape[:rank]
    geometry = []
    for n, k, s, d in zip(x.shape[1:-1], ksize, strides, dilation):
        effective = (k - 1) * d + 1
        if padding == "valid":
            geometry.append(((n - effective) // s + 1, 0))
        elif padding == "causal":
            geometry.append((-(-n // s), effective - 1))
        else:
            geometry.append(same_pads(n, k, s, d))
    cin_g, cout = kernel.shape[-2], kernel.shape[-1]
    cout_g = cout // groups
    out = np.zeros((x.shape[0],) + tuple(o for o, _ in geometry) + (cout,))
    for position in np.ndindex(*out.shape[1:-1]):
        for tap in np.ndindex(*ksize):
            index = tuple(p * s + t * d - before for p, t, s, d, (_, before)
                          in zip(position, tap, strides, dilation, geometry))
            if any(i < 0 or i >= n for i, n in zip(index, x.shape[1:-1])):
                continue
            pixel = x[(slice(None),) + index]
            for g in range(groups):
                out[(slice(None),) + position + (slice(g * cout_g, (g + 1) * cout_g),)] += (
                    pixel[:, g * cin_g:(g + 1) * cin_g] @ kernel[tap][:, g * cout_g:
                                                                      (g + 1) * cout_g])
    return out


def reference_conv_transpose(x, kernel, strides, padding, dilation):
    """Scatter every input pixel through the kernel (kernel (kh, kw, out, in)), then crop
    with the padding of the forward convolution of the output size."""
    spatial = x.shape[1:-1]
    ksize = kernel.shape[:2]
    full_sizes, out_sizes, befores = [], [], []
    for n, k, s, d in zip(spatial, ksize, strides, dilation):
        effective = (k - 1) * d + 1
        out = n * s + max(effective - s, 0) if padding == "valid" else n * s
        total = max((n - 1) * s + effective - out, 0)
        full_sizes.append(max((n - 1) * s + effective, out))
        out_sizes.append(out)
        befores.append(total // 2 if padding == "same" else 0)
    buffer = np.zeros((x.shape[0], *full_sizes, kernel.shape[2]))
    for i, j in np.ndindex(*spatial):
        for a, b in np.ndindex(*ksize):
            row, col = i * strides[0] + a * dilation[0], j * strides[1] + b * dilation[1]
            buffer[:, row, col, :] += x[:, i, j, :] @ kernel[a, b].T
    return buffer[:, befores[0]:befores[0] + out_sizes[0], befores[1]:befores[1] + out_sizes[1]]


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


@pytest.mark.parametrize("padding", ["valid", "same"])
@pytest.mark.parametrize("strides, kernel_size", [((1, 1), (3, 3)), ((2, 2), (3, 3)),
                                                  ((2, 2), (2, 2)), ((3, 2), (2, 3))])
def test_conv2d_transpose_matches_scatter_reference(padding, strides, kernel_size):
    x = rand(2, 3, 4, 3).astype("float32")
    layer = layers.Conv2DTranspose(2, kernel_size, strides=strides, padding=padding,
                                   bias_initializer="random_normal")
    got = run(layer, x)
    kernel, bias = layer.get_weights()
    assert kernel.shape == kernel_size + (2, 3)
    expected = reference_conv_transpose(x, kernel, strides, padding, (1, 1)) + bias
    assert got.shape == expected.shape
    assert layer.compute_output_shape((None, 3, 4, 3)) == (None,) + expected.shape[1:]
    np.testing.assert_allclose(got, expected, atol=1e-5)


def test_depthwise_and_separable_match_reference():
    x = rand(2, 6, 5, 3).astype("float32")
    depthwise = layers.DepthwiseConv2D(3, depth_multiplier=2, padding="same", strides=2,
                                       bias_initializer="random_normal")
    got = run(depthwise, x)
    kernel, bias = depthwise.get_weights()
    assert kernel.shape == (3, 3, 3, 2) and bias.shape == (6,)
    # Output channel c * multiplier + m: channel c through filter m.
    expected = np.concatenate(
        [reference_conv(x[..., c:c + 1], kernel[:, :, c:c + 1, :], (2, 2), "same", (1, 1))
         for c in range(3)], axis=-1) + bias
    np.testing.assert_allclose(got, expected, atol=1e-5)

    separable = layers.SeparableConv2D(4, 2, depth_multiplier=2, dilation_rate=2,
                                       bias_initializer="random_normal")
    got = run(separable, x)
    depth_kernel, point_kernel, bias = separable.get_weights()
    assert depth_kernel.shape == (2, 2, 3, 2) and point_kernel.shape == (1, 1, 6, 4)
    depth = np.concatenate(
        [reference_conv(x[..., c:c + 1], depth_kernel[:, :, c:c + 1, :], (1, 1), "valid",
                        (2, 2)) for c in range(3)], axis=-1)
    expected = depth @ point_kernel[0, 0] + bias
    np.testing.assert_allclose(got, expected, atol=1e-5)


def test_weight_names_order_and_defaults():
    conv = layers.Conv2D(8, 3)
    conv.build((None, 10, 10, 3))
    assert [w.name for w in conv.weights] == ["kernel", "bias"]
    assert [w.shape for w in conv.weights] == [(3, 3, 3, 8), (8,)]
    assert conv.name.startswith("conv2d")
    no_bias = layers.Conv1D(8, 5, use_bias=False)
    no_bias.build((None, 20, 4))
    assert [w.shape for w in no_bias.weights] == [(5, 4, 8)]
    separable = layers.SeparableConv2D(8, 3)
    separable.build((None, 10, 10, 3))
    assert [w.name for w in separable.weights] == ["depthwise_kernel", "pointwise_kernel",
                                                   "bias"]
    depthwise = layers.DepthwiseConv2D(3)
    depthwise.build((None, 10, 10, 3))
    assert [w.name for w in depthwise.weights] == ["depthwise_kernel", "bias"]
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
    (lambda: layers.Conv2DTranspose(2, 3, strides=2, padding="same"), (2, 3, 3, 2)),
    (lambda: layers.Conv2DTranspose(2, 2, strides=1, padding="valid"), (1, 3, 2, 2)),
    (lambda: layers.DepthwiseConv2D(2, depth_multiplier=2, strides=2, padding="same"),
     (2, 4, 5, 2)),
    (lambda: layers.SeparableConv2D(3, 2, depth_multiplier=2, padding="same"), (2, 3, 4, 2)),
]
CASE_IDS = ["conv1d_causal", "conv1d_groups", "conv2d_same", "conv2d_dilated",
            "transpose_same", "transpose_valid", "depthwise", "separable"]


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
    (lambda: layers.Conv2D(4, 3, data_format="channels_first", name="c8"),
     "Layer 'c8' .*channels_last"),
    (lambda: layers.DepthwiseConv2D(3, depth_multiplier=0, name="c9"),
     "Layer 'c9' .*depth_multiplier"),
    (lambda: layers.Conv2DTranspose(4, 3, output_padding=1, name="c10"),
     "Layer 'c10' .*output_padding"),
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

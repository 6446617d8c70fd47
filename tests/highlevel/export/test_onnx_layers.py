"""ONNX export of the feed-forward layer families: onnxruntime predicts what lamina does."""

import numpy as np
import pytest

import lamina
from lamina import layers as L
from harness.onnx_export import check_onnx, randomize_weights

pytest.importorskip("onnx", reason="ONNX export needs the [onnx] extra")
pytest.importorskip("onnxruntime", reason="onnxruntime is in the [test] extra")

RNG = np.random.RandomState(0)


def _sequential(shape, *stack):
    return randomize_weights(lamina.Sequential([lamina.Input(shape), *stack]))


ACTIVATIONS = ["linear", "relu", "sigmoid", "tanh", "softmax", "log_softmax", "elu", "selu",
               "softplus", "softsign", "exponential", "hard_sigmoid", "leaky_relu", "relu6",
               "silu", "swish", "gelu"]


@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_dense_with_every_activation(activation, tmp_path):
    model = _sequential((6,), L.Dense(5, activation=activation), L.Activation(activation))
    check_onnx(model, RNG.randn(3, 6).astype("float32") * 2, tmp_path)


CASES = {
    "dense_rank3_no_bias": ((4, 6), [L.Dense(3, use_bias=False)]),
    "conv1d_valid_strided": ((11, 3), [L.Conv1D(4, 3, strides=2, activation="relu")]),
    "conv1d_same_dilated": ((10, 3), [L.Conv1D(4, 3, padding="same", dilation_rate=2)]),
    "conv1d_causal": ((9, 2), [L.Conv1D(3, 4, padding="causal")]),
    "conv2d_same_strided": ((9, 8, 3), [L.Conv2D(4, (3, 2), strides=(2, 3), padding="same")]),
    "conv2d_groups": ((7, 7, 4), [L.Conv2D(6, 3, groups=2)]),
    "conv2d_transpose_valid": ((5, 4, 3), [L.Conv2DTranspose(2, 3, strides=2)]),
    "conv2d_transpose_same": ((5, 4, 3), [L.Conv2DTranspose(2, (4, 3), strides=2,
                                                            padding="same")]),
    "conv2d_transpose_small_kernel": ((4, 4, 2), [L.Conv2DTranspose(3, 1, strides=3)]),
    "depthwise": ((8, 8, 3), [L.DepthwiseConv2D(3, depth_multiplier=2, padding="same")]),
    "separable": ((8, 8, 3), [L.SeparableConv2D(5, 3, depth_multiplier=2, strides=2)]),
    "pooling_2d": ((8, 9, 3), [L.MaxPooling2D(2, padding="same"),
                               L.AveragePooling2D((2, 3), strides=1)]),
    "pooling_1d": ((9, 3), [L.MaxPooling1D(2), L.AveragePooling1D(3, padding="same")]),
    "avg_pool_same_edges": ((7, 7, 2), [L.AveragePooling2D(3, strides=2, padding="same")]),
    "global_pooling_2d": ((5, 6, 3), [L.GlobalMaxPooling2D(keepdims=True),
                                      L.GlobalAveragePooling2D()]),
    "global_pooling_1d": ((7, 3), [L.GlobalAveragePooling1D()]),
    "global_max_1d": ((7, 3), [L.GlobalMaxPooling1D()]),
    "batch_norm": ((5, 4), [L.BatchNormalization(), L.Dropout(0.5)]),
    "layer_norm": ((5, 4), [L.LayerNormalization(), L.LayerNormalization(center=False)]),
    "layer_norm_rms": ((5, 4), [L.LayerNormalization(rms_scaling=True)]),
    "reshaping": ((4, 6), [L.Reshape((3, 8)), L.Permute((2, 1)), L.Flatten(),
                           L.RepeatVector(2), L.Reshape((-1,))]),
    "rescaling_noise": ((4,), [L.Rescaling(0.5, offset=-1.0), L.GaussianNoise(1.0),
                               L.Identity(), L.ActivityRegularization(0.1)]),
    "spatial_dropout": ((5, 4), [L.SpatialDropout1D(0.3), L.Dense(2)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_layer_family(name, tmp_path):
    shape, stack = CASES[name]
    model = _sequential(shape, *stack)
    check_onnx(model, RNG.randn(3, *shape).astype("float32"), tmp_path)


def test_embedding_takes_integer_ids(tmp_path):
    model = _sequential((5,), L.Embedding(10, 4), L.Flatten(), L.Dense(2))
    model = lamina.Sequential([lamina.Input((5,), dtype="int32"), *model.layers])
    check_onnx(model, RNG.randint(0, 10, (3, 5)).astype("int32"), tmp_path)


MERGES = [L.Add, L.Subtract, L.Multiply, L.Average, L.Maximum, L.Minimum,
          lambda: L.Concatenate(axis=-1), lambda: L.Dot(axes=1),
          lambda: L.Dot(axes=1, normalize=True)]


@pytest.mark.parametrize("make", MERGES, ids=lambda m: getattr(m, "__name__", "lambda"))
def test_merge_layers(make, tmp_path):
    a, b = lamina.Input((4,), name="a"), lamina.Input((4,), name="b")
    model = lamina.Model([a, b], make()([L.Dense(4)(a), b]))
    randomize_weights(model)
    check_onnx(model, [RNG.randn(3, 4).astype("float32"), RNG.randn(3, 4).astype("float32")],
               tmp_path)


@pytest.mark.parametrize("axes", [2, 1, (2, 1), (1, 2)])
def test_dot_of_sequences(axes, tmp_path):
    a, b = lamina.Input((3, 3)), lamina.Input((3, 3))
    model = lamina.Model([a, b], L.Dot(axes=axes)([a, b]))
    check_onnx(model, [RNG.randn(2, 3, 3).astype("float32"),
                       RNG.randn(2, 3, 3).astype("float32")], tmp_path)

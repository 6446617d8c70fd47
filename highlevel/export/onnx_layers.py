"""ONNX converters of the feed-forward layers: a converter is ``fn(builder, layer, inputs,
shapes, node) -> [output names]`` (``inputs``: the value names of the call's tensors,
``shapes``: their symbolic shapes), registered for exact layer classes with
:func:`.onnx_registry.converts`. Recurrent layers and attention are in :mod:`.onnx_sequence`.

Convolutions and pooling run channels-first in ONNX: the input is transposed to NC...,
the op runs, the result is transposed back, so the graph's tensors keep Keras' layout.
"""

import math

import numpy as np

from ... import layers as L
from ...layers.options import activations as activations_module
from .onnx_registry import converts, unsupported, weight

# ------------------------------------------------------------------ activations
def _gelu(b, x, hint):
    """Keras' ``activations.gelu`` (the exact form): ``0.5 * x * (1 + erf(x / sqrt(2)))``."""
    scaled = b.op("Mul", [x, b.const(1.0 / math.sqrt(2.0), "c")], hint)
    half = b.op("Mul", [x, b.const(0.5, "c")], hint)
    return b.op("Mul", [half, b.op("Add", [b.op("Erf", [scaled], hint), b.const(1.0, "c")],
                                   hint)], hint)


_ACTIVATIONS = {
    "linear": lambda b, x, h: x,
    "relu": lambda b, x, h: b.op("Relu", [x], h),
    "sigmoid": lambda b, x, h: b.op("Sigmoid", [x], h),
    "tanh": lambda b, x, h: b.op("Tanh", [x], h),
    "softmax": lambda b, x, h: b.op("Softmax", [x], h, axis=-1),
    "log_softmax": lambda b, x, h: b.op("LogSoftmax", [x], h, axis=-1),
    "elu": lambda b, x, h: b.op("Elu", [x], h, alpha=1.0),
    "selu": lambda b, x, h: b.op("Selu", [x], h, alpha=1.6732632423543772,
                                 gamma=1.0507009873554805),
    "softplus": lambda b, x, h: b.op("Softplus", [x], h),
    "softsign": lambda b, x, h: b.op("Softsign", [x], h),
    "exponential": lambda b, x, h: b.op("Exp", [x], h),
    "hard_sigmoid": lambda b, x, h: b.op("HardSigmoid", [x], h, alpha=1.0 / 6.0, beta=0.5),
    "leaky_relu": lambda b, x, h: b.op("LeakyRelu", [x], h, alpha=0.2),
    "relu6": lambda b, x, h: b.op("Clip", [x, b.const(0.0, "zero"), b.const(6.0, "six")], h),
    "silu": lambda b, x, h: b.op("Mul", [x, b.op("Sigmoid", [x], h)], h),
    "swish": lambda b, x, h: b.op("Mul", [x, b.op("Sigmoid", [x], h)], h),
    "gelu": _gelu,
}


def activation(b, layer, function, x):
    """Apply the activation ``function`` (a lamina activation) to value ``x``."""
    name = activations_module.serialize(function)
    if name not in _ACTIVATIONS:
        raise unsupported(layer, f"activation {name!r} has no ONNX form (known: "
                                 f"{sorted(_ACTIVATIONS)})")
    return _ACTIVATIONS[name](b, x, layer.name)


@converts(L.Activation)
def _activation_layer(b, layer, inputs, shapes, node):
    return [activation(b, layer, layer.activation, inputs[0])]


# ------------------------------------------------------------------ core
@converts(L.Dense)
def _dense(b, layer, inputs, shapes, node):
    out = b.op("MatMul", [inputs[0], b.const(weight(layer.kernel), f"{layer.name}/kernel")],
               layer.name)
    if layer.bias is not None:
        out = b.op("Add", [out, b.const(weight(layer.bias), f"{layer.name}/bias")],
                   layer.name)
    return [activation(b, layer, layer.activation, out)]


_IDENTITY_CLASSES = [L.Dropout, L.Identity, L.SpatialDropout1D, L.SpatialDropout2D,
                     L.GaussianNoise, L.ActivityRegularization]
_IDENTITY_CLASSES += [getattr(L, n) for n in ("GaussianDropout", "AlphaDropout",
                                              "SpatialDropout3D") if hasattr(L, n)]


@converts(*_IDENTITY_CLASSES)
def _identity(b, layer, inputs, shapes, node):
    return [b.op("Identity", [inputs[0]], layer.name)]


@converts(L.Flatten)
def _flatten(b, layer, inputs, shapes, node):
    return [b.op("Flatten", [inputs[0]], layer.name, axis=1)]


@converts(L.Reshape)
def _reshape(b, layer, inputs, shapes, node):
    shape = b.ints([0, *layer.target_shape], f"{layer.name}/shape")
    return [b.op("Reshape", [inputs[0], shape], layer.name)]


@converts(L.Permute)
def _permute(b, layer, inputs, shapes, node):
    return [b.op("Transpose", [inputs[0]], layer.name, perm=[0, *layer.dims])]


@converts(L.RepeatVector)
def _repeat_vector(b, layer, inputs, shapes, node):
    expanded = b.op("Unsqueeze", [inputs[0], b.ints([1], "axes")], layer.name)
    return [b.op("Expand", [expanded, b.ints([1, layer.n, 1], f"{layer.name}/shape")],
                 layer.name)]


@converts(L.Rescaling)
def _rescaling(b, layer, inputs, shapes, node):
    scaled = b.op("Mul", [inputs[0], b.const(layer.scale, f"{layer.name}/scale")], layer.name)
    return [b.op("Add", [scaled, b.const(layer.offset, f"{layer.name}/offset")], layer.name)]


@converts(L.Embedding)
def _embedding(b, layer, inputs, shapes, node):
    if layer.mask_zero:
        raise unsupported(layer, "mask_zero=True: masks are not exported")
    ids = b.op("Cast", [inputs[0]], layer.name, to=b.onnx.TensorProto.INT64)
    table = b.const(weight(layer.embeddings), f"{layer.name}/embeddings")
    return [b.op("Gather", [table, ids], layer.name, axis=0)]


# ------------------------------------------------------------------ normalization
def _last_axis_affine(b, layer, x, scale, shift):
    out = b.op("Mul", [x, b.const(scale, f"{layer.name}/scale")], layer.name)
    return b.op("Add", [out, b.const(shift, f"{layer.name}/shift")], layer.name)


@converts(L.BatchNormalization)
def _batch_norm(b, layer, inputs, shapes, node):
    mean = layer.moving_mean.numpy().astype(np.float64)
    variance = layer.moving_variance.numpy().astype(np.float64)
    gamma = 1.0 if layer.gamma is None else layer.gamma.numpy().astype(np.float64)
    beta = 0.0 if layer.beta is None else layer.beta.numpy().astype(np.float64)
    scale = gamma / np.sqrt(variance + layer.epsilon)
    return [_last_axis_affine(b, layer, inputs[0], scale, beta - mean * scale)]


@converts(L.LayerNormalization)
def _layer_norm(b, layer, inputs, shapes, node):
    x, features = inputs[0], shapes[0][-1]
    if layer.rms_scaling:
        mean = b.op("ReduceMean", [x], layer.name, axes=[-1], keepdims=1)
        centred = b.op("Sub", [x, mean], layer.name)
        variance = b.op("ReduceMean", [b.op("Mul", [centred, centred], layer.name)],
                        layer.name, axes=[-1], keepdims=1)
        denominator = b.op("Sqrt", [b.op("Add", [variance, b.const(layer.epsilon, "eps")],
                                         layer.name)], layer.name)
        out = b.op("Div", [x, denominator], layer.name)
        if layer.gamma is not None:
            out = b.op("Mul", [out, b.const(weight(layer.gamma), "gamma")], layer.name)
        return [out]
    gamma = (weight(layer.gamma) if layer.gamma is not None
             else np.ones(features, np.float32))
    beta = (weight(layer.beta) if layer.beta is not None
            else np.zeros(features, np.float32))
    return [b.op("LayerNormalization", [x, b.const(gamma, f"{layer.name}/gamma"),
                                        b.const(beta, f"{layer.name}/beta")],
                 layer.name, axis=-1, epsilon=layer.epsilon)]


# ------------------------------------------------------------------ merging
_VARIADIC = {L.Add: "Sum", L.Average: "Mean", L.Maximum: "Max", L.Minimum: "Min"}


@converts(*_VARIADIC)
def _variadic_merge(b, layer, inputs, shapes, node):
    return [b.op(_VARIADIC[type(layer)], inputs, layer.name)]


@converts(L.Subtract)
def _subtract(b, layer, inputs, shapes, node):
    return [b.op("Sub", inputs, layer.name)]


@converts(L.Multiply)
def _multiply(b, layer, inputs, shapes, node):
    out = inputs[0]
    for other in inputs[1:]:
        out = b.op("Mul", [out, other], layer.name)
    return [out]


@converts(L.Concatenate)
def _concatenate(b, layer, inputs, shapes, node):
    return [b.op("Concat", inputs, layer.name, axis=layer.axis)]


def _l2_normalize(b, layer, x, axis):
    squares = b.op("ReduceSum", [b.op("Mul", [x, x], layer.name), b.ints([axis], "axes")],
                   layer.name, keepdims=1)
    norm = b.op("Sqrt", [b.op("Max", [squares, b.const(1e-12, "eps")], layer.name)],
                layer.name)
    return b.op("Div", [x, norm], layer.name)


@converts(L.Dot)
def _dot(b, layer, inputs, shapes, node):
    (x1, x2), (s1, s2) = inputs, shapes
    a1, a2 = layer.resolved_axes([s1, s2])
    if len(s1) != len(s2) or len(s1) not in (2, 3):
        raise unsupported(layer, f"Dot of inputs of ranks {len(s1)} and {len(s2)} (only two "
                                 "inputs of rank 2 or of rank 3)")
    if layer.normalize:
        x1, x2 = _l2_normalize(b, layer, x1, a1), _l2_normalize(b, layer, x2, a2)
    if len(s1) == 2:
        product = b.op("Mul", [x1, x2], layer.name)
        return [b.op("ReduceSum", [product, b.ints([1], "axes")], layer.name, keepdims=1)]
    left = x1 if a1 == 2 else b.op("Transpose", [x1], layer.name, perm=[0, 2, 1])
    right = x2 if a2 == 1 else b.op("Transpose", [x2], layer.name, perm=[0, 2, 1])
    return [b.op("MatMul", [left, right], layer.name)]


# ------------------------------------------------------------------ convolution, pooling
def _to_channels_first(b, layer, x, rank):
    return b.op("Transpose", [x], layer.name, perm=[0, rank + 1, *range(1, rank + 1)])


def _to_channels_last(b, layer, x, rank):
    return b.op("Transpose", [x], layer.name, perm=[0, *range(2, rank + 2), 1])


def _pads(layer, spatial, kernel, strides, dilation, padding):
    """ONNX ``pads`` (all begins, then all ends) for Keras' padding, or None with
    ``auto_pad`` (unknown spatial size with "same")."""
    begins, ends = [], []
    for size, k, s, d in zip(spatial, kernel, strides, dilation):
        effective = (k - 1) * d + 1
        if padding == "valid":
            total = 0
        elif padding == "causal":
            begins.append(effective - 1)
            ends.append(0)
            continue
        elif size is None:
            return None
        else:
            out = -(-size // s)
            total = max((out - 1) * s + effective - size, 0)
        begins.append(total // 2)
        ends.append(total - total // 2)
    return begins + ends


def _conv_node(b, layer, x, shape, kernel_onnx, bias, kernel_size, group=1, strides=None,
               padding=None, dilation=None):
    """An ONNX Conv on a channels-last value ``x`` of symbolic ``shape``."""
    rank = len(shape) - 2
    strides = layer.strides if strides is None else strides
    dilation = layer.dilation_rate if dilation is None else dilation
    padding = layer.padding if padding is None else padding
    pads = _pads(layer, shape[1:-1], kernel_size, strides, dilation, padding)
    inputs = [_to_channels_first(b, layer, x, rank),
              b.const(kernel_onnx, f"{layer.name}/kernel")]
    if bias is not None:
        inputs.append(b.const(bias, f"{layer.name}/bias"))
    out = b.op("Conv", inputs, layer.name, kernel_shape=list(kernel_size),
               strides=list(strides), dilations=list(dilation), group=group, pads=pads,
               auto_pad=None if pads is not None else "SAME_UPPER")
    return _to_channels_last(b, layer, out, rank)


def _bias(layer):
    return None if layer.bias is None else weight(layer.bias)


def _kernel_to_onnx(kernel):
    """(*k, in, out) -> (out, in, *k)."""
    rank = kernel.ndim - 2
    return kernel.transpose(rank + 1, rank, *range(rank))


@converts(L.Conv1D, L.Conv2D)
def _conv(b, layer, inputs, shapes, node):
    kernel = _kernel_to_onnx(weight(layer.kernel))
    out = _conv_node(b, layer, inputs[0], shapes[0], kernel, _bias(layer), layer.kernel_size,
                     group=layer.groups)
    return [activation(b, layer, layer.activation, out)]


def _depthwise_kernel(layer):
    """(*k, in, mult) -> (in * mult, 1, *k): output channel ``c * mult + m``."""
    kernel = weight(getattr(layer, layer.depthwise_weight))   # "kernel" in DepthwiseConv*
    rank = kernel.ndim - 2
    channels, mult = kernel.shape[-2:]
    moved = kernel.transpose(rank, rank + 1, *range(rank))
    return moved.reshape(channels * mult, 1, *kernel.shape[:rank]), channels


@converts(L.DepthwiseConv2D)
def _depthwise(b, layer, inputs, shapes, node):
    kernel, channels = _depthwise_kernel(layer)
    out = _conv_node(b, layer, inputs[0], shapes[0], kernel, _bias(layer), layer.kernel_size,
                     group=channels)
    return [activation(b, layer, layer.activation, out)]


@converts(L.SeparableConv2D)
def _separable(b, layer, inputs, shapes, node):
    kernel, channels = _depthwise_kernel(layer)
    depthwise = _conv_node(b, layer, inputs[0], shapes[0], kernel, None, layer.kernel_size,
                           group=channels)
    rank = len(shapes[0]) - 2
    pointwise = _kernel_to_onnx(weight(layer.pointwise_kernel))
    middle = (None,) * (rank + 1) + (kernel.shape[0],)
    out = _conv_node(b, layer, depthwise, middle, pointwise, _bias(layer), (1,) * rank,
                     strides=(1,) * rank, padding="valid", dilation=(1,) * rank)
    return [activation(b, layer, layer.activation, out)]


@converts(L.Conv2DTranspose)
def _conv_transpose(b, layer, inputs, shapes, node):
    kernel = weight(layer.kernel)                    # (kh, kw, filters, in)
    inputs_onnx = [_to_channels_first(b, layer, inputs[0], 2),
                   b.const(kernel.transpose(3, 2, 0, 1), f"{layer.name}/kernel")]
    if layer.bias is not None:
        inputs_onnx.append(b.const(_bias(layer), f"{layer.name}/bias"))
    begins, ends, extra = [], [], []
    for k, s, d in zip(layer.kernel_size, layer.strides, layer.dilation_rate):
        effective = (k - 1) * d + 1
        total = max(effective - s, 0) if layer.padding == "same" else 0
        begins.append(total // 2)
        ends.append(total - total // 2)
        extra.append(max(s - effective, 0))
    out = b.op("ConvTranspose", inputs_onnx, layer.name, kernel_shape=list(layer.kernel_size),
               strides=list(layer.strides), dilations=list(layer.dilation_rate),
               pads=begins + ends, output_padding=extra)
    return [activation(b, layer, layer.activation, _to_channels_last(b, layer, out, 2))]


_POOLS = {L.MaxPooling1D: "MaxPool", L.MaxPooling2D: "MaxPool",
          L.AveragePooling1D: "AveragePool", L.AveragePooling2D: "AveragePool"}


@converts(*_POOLS)
def _pool(b, layer, inputs, shapes, node):
    rank = layer.rank
    pads = _pads(layer, shapes[0][1:-1], layer.pool_size, layer.strides, (1,) * rank,
                 layer.padding)
    out = b.op(_POOLS[type(layer)], [_to_channels_first(b, layer, inputs[0], rank)],
               layer.name, kernel_shape=list(layer.pool_size), strides=list(layer.strides),
               pads=pads, auto_pad=None if pads is not None else "SAME_UPPER")
    return [_to_channels_last(b, layer, out, rank)]


_GLOBAL_POOLS = {L.GlobalAveragePooling1D: "ReduceMean", L.GlobalAveragePooling2D: "ReduceMean",
                 L.GlobalMaxPooling1D: "ReduceMax", L.GlobalMaxPooling2D: "ReduceMax"}


@converts(*_GLOBAL_POOLS)
def _global_pool(b, layer, inputs, shapes, node):
    return [b.op(_GLOBAL_POOLS[type(layer)], [inputs[0]], layer.name,
                 axes=list(layer.reduction_axes), keepdims=int(layer.keepdims))]


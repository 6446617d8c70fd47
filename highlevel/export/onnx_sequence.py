"""ONNX converters of the sequence layers: SimpleRNN, LSTM, GRU (ONNX ``RNN``/``LSTM``/``GRU``
ops), Bidirectional (one forward and one reverse op, merged) and MultiHeadAttention (a
MatMul/Softmax subgraph).

Keras' LSTM gates are ordered i, f, c, o; ONNX's i, o, f, c. GRU gates are z, r, h in both;
``reset_after=True`` is ONNX's ``linear_before_reset=1`` with the input and recurrent
biases given separately. ONNX runs time-major: inputs are transposed to (time, batch, ...).
"""

import math

import numpy as np

from ... import layers as L
from .onnx_registry import converts, unsupported, weight

_INT64_MIN = np.iinfo(np.int64).min
_RNN_ACTIVATIONS = {"sigmoid": ("Sigmoid", None, None), "tanh": ("Tanh", None, None),
                    "relu": ("Relu", None, None),
                    "hard_sigmoid": ("HardSigmoid", 1.0 / 6.0, 0.5)}


def _activations(layer, names):
    ops, alphas, betas = [], [], []
    for name in names:
        if name not in _RNN_ACTIVATIONS:
            raise unsupported(layer, f"recurrent activation {name!r} (ONNX recurrent ops "
                                     f"take {sorted(_RNN_ACTIVATIONS)})")
        op, alpha, beta = _RNN_ACTIVATIONS[name]
        ops.append(op)
        alphas.append(alpha)
        betas.append(beta)
    if all(a is None for a in alphas):
        return ops, None, None
    return ops, [0.0 if a is None else a for a in alphas], [0.0 if v is None else v
                                                              for v in betas]


def _reorder(matrix, blocks, order):
    """Split the last axis of ``matrix`` into ``blocks`` gates and reorder them."""
    parts = np.split(matrix, blocks, axis=-1)
    return np.concatenate([parts[i] for i in order], axis=-1)


def _recurrent(b, layer, x_time_major, direction):
    """One ONNX recurrent op for ``layer`` (SimpleRNN/LSTM/GRU) on a (time, batch, features)
    value. Returns (sequence (time, batch, units) aligned with the input's time axis,
    [final states (batch, units)...])."""
    cell = layer.cell
    units = cell.units
    kernel, recurrent = weight(cell.kernel), weight(cell.recurrent_kernel)
    bias = None if cell.bias is None else weight(cell.bias)
    attrs = {}
    if isinstance(layer, L.LSTM):
        op, gates, order = "LSTM", 4, [0, 3, 1, 2]          # i f c o -> i o f c
        names = [cell.recurrent_activation, cell.activation, cell.activation]
        input_bias = np.zeros(4 * units, np.float32) if bias is None else bias
        recurrent_bias = np.zeros_like(input_bias)
    elif isinstance(layer, L.GRU):
        op, gates, order = "GRU", 3, [0, 1, 2]
        names = [cell.recurrent_activation, cell.activation]
        attrs["linear_before_reset"] = int(cell.reset_after)
        if bias is None:
            input_bias = recurrent_bias = np.zeros(3 * units, np.float32)
        elif cell.reset_after:
            input_bias, recurrent_bias = bias[0], bias[1]
        else:
            input_bias, recurrent_bias = bias, np.zeros_like(bias)
    else:
        op, gates, order = "RNN", 1, [0]
        names = [cell.activation]
        input_bias = np.zeros(units, np.float32) if bias is None else bias
        recurrent_bias = np.zeros_like(input_bias)
    activations, alphas, betas = _activations(layer, names)
    w = _reorder(kernel, gates, order).T[None]                  # (1, gates*units, in)
    r = _reorder(recurrent, gates, order).T[None]
    bias_onnx = np.concatenate([_reorder(input_bias, gates, order),
                                _reorder(recurrent_bias, gates, order)])[None]
    outputs = b.op(op, [x_time_major, b.const(w, f"{layer.name}/W"),
                        b.const(r, f"{layer.name}/R"), b.const(bias_onnx, f"{layer.name}/B")],
                   layer.name, outputs=3 if op == "LSTM" else 2, hidden_size=units,
                   direction=direction, activations=activations, activation_alpha=alphas,
                   activation_beta=betas, **attrs)
    axis0, axis1 = b.ints([0], "axes"), b.ints([1], "axes")
    sequence = b.op("Squeeze", [outputs[0], axis1], layer.name)     # (time, batch, units)
    states = [b.op("Squeeze", [state, axis0], layer.name) for state in outputs[1:]]
    return sequence, states


def _time_major(b, layer, x):
    return b.op("Transpose", [x], layer.name, perm=[1, 0, 2])


def _batch_major_sequence(b, layer, sequence, reverse):
    if reverse:     # Keras' go_backwards returns the outputs in processing order
        sequence = b.op("Slice", [sequence, b.ints([-1], "start"), b.ints([_INT64_MIN], "end"),
                                  b.ints([0], "axes"), b.ints([-1], "step")], layer.name)
    return b.op("Transpose", [sequence], layer.name, perm=[1, 0, 2])


def _check_recurrent(layer):
    if type(layer) not in (L.SimpleRNN, L.LSTM, L.GRU):
        raise unsupported(layer, "only SimpleRNN, LSTM and GRU (not RNN with a custom cell)")


@converts(L.SimpleRNN, L.LSTM, L.GRU)
def _rnn(b, layer, inputs, shapes, node):
    if len(inputs) != 1:
        raise unsupported(layer, "initial_state is not exported")
    sequence, states = _recurrent(b, layer, _time_major(b, layer, inputs[0]),
                                  "reverse" if layer.go_backwards else "forward")
    output = (_batch_major_sequence(b, layer, sequence, layer.go_backwards)
              if layer.return_sequences else states[0])
    return [output, *states] if layer.return_state else [output]


_MERGES = {"sum": "Add", "mul": "Mul"}


@converts(L.Bidirectional)
def _bidirectional(b, layer, inputs, shapes, node):
    if len(inputs) != 1:
        raise unsupported(layer, "initial_state is not exported")
    forward, backward = layer.forward_layer, layer.backward_layer
    _check_recurrent(forward)
    _check_recurrent(backward)
    x = _time_major(b, layer, inputs[0])
    results = []
    for sub in (forward, backward):
        sequence, states = _recurrent(b, sub, x, "reverse" if sub.go_backwards else "forward")
        output = (_batch_major_sequence(b, sub, sequence, False)
                  if layer.return_sequences else states[0])
        results.append((output, states))
    (out_f, states_f), (out_b, states_b) = results
    mode = layer.merge_mode
    if mode is None:
        merged = [out_f, out_b]
    elif mode == "concat":
        merged = [b.op("Concat", [out_f, out_b], layer.name, axis=-1)]
    elif mode == "ave":
        total = b.op("Add", [out_f, out_b], layer.name)
        merged = [b.op("Mul", [total, b.const(0.5, "half")], layer.name)]
    else:
        merged = [b.op(_MERGES[mode], [out_f, out_b], layer.name)]
    return merged + states_f + states_b if layer.return_state else merged


def _projection(b, layer, projection, x, heads, size):
    """``x @ kernel + bias`` of a head projection, as (batch, heads, length, size)."""
    kernel = weight(projection.kernel)
    flat = b.const(kernel.reshape(kernel.shape[0], -1), f"{layer.name}/{projection.name}/kernel")
    out = b.op("MatMul", [x, flat], layer.name)
    if projection.bias is not None:
        bias = weight(projection.bias).reshape(-1)
        out = b.op("Add", [out, b.const(bias, f"{layer.name}/{projection.name}/bias")],
                   layer.name)
    split = b.op("Reshape", [out, b.ints([0, 0, heads, size], "shape")], layer.name)
    return b.op("Transpose", [split], layer.name, perm=[0, 2, 1, 3])


@converts(L.MultiHeadAttention)
def _multi_head_attention(b, layer, inputs, shapes, node):
    if len(shapes[0]) != 3:
        raise unsupported(layer, f"query of rank {len(shapes[0])} (only (batch, time, "
                                 "features))")
    for key in ("return_attention_scores", "use_causal_mask"):
        if node.kwargs.get(key):
            raise unsupported(layer, f"{key}=True is not exported")
    if len(inputs) not in (2, 3):
        raise unsupported(layer, "it needs query, value (and optional key) tensors only")
    query, value = inputs[0], inputs[1]
    key = inputs[2] if len(inputs) == 3 else value
    heads = layer.num_heads
    q = _projection(b, layer, layer.query_dense, query, heads, layer.key_dim)
    k = _projection(b, layer, layer.key_dense, key, heads, layer.key_dim)
    v = _projection(b, layer, layer.value_dense, value, heads, layer.value_dim)
    q = b.op("Mul", [q, b.const(1.0 / math.sqrt(float(layer.key_dim)), "scale")], layer.name)
    scores = b.op("MatMul", [q, b.op("Transpose", [k], layer.name, perm=[0, 1, 3, 2])],
                  layer.name)
    probabilities = b.op("Softmax", [scores], layer.name, axis=-1)
    context = b.op("Transpose", [b.op("MatMul", [probabilities, v], layer.name)], layer.name,
                   perm=[0, 2, 1, 3])
    context = b.op("Reshape", [context, b.ints([0, 0, heads * layer.value_dim], "shape")],
                   layer.name)
    output_dense = layer.output_dense
    kernel = weight(output_dense.kernel)
    out = b.op("MatMul", [context, b.const(kernel.reshape(heads * layer.value_dim, -1),
                                           f"{layer.name}/attention_output/kernel")],
               layer.name)
    if output_dense.bias is not None:
        out = b.op("Add", [out, b.const(weight(output_dense.bias).reshape(-1),
                                        f"{layer.name}/attention_output/bias")], layer.name)
    if len(kernel.shape) > 3:
        out = b.op("Reshape", [out, b.ints([0, 0, *kernel.shape[2:]], "shape")], layer.name)
    return [out]

"""Convolution and pooling ops (channels-last), forward and backward on Backend kernels."""

from .. import state
from ..conv import conv_output_shape, conv_workspace_bytes, workspace_per_sample
from ..pool import pool_output_shape
from .core import data_of, record
from .activation_kernels import (activation_backward, add_bias_and_activate,
                                 check_fused_activation, saved_output)
from .shape import reshape, transpose


def _tuple(value, rank, name):
    if isinstance(value, int):
        return (value,) * rank
    value = tuple(int(v) for v in value)
    if len(value) != rank:
        raise ValueError(f"{name} must be an int or a tuple of {rank} ints, got {value}")
    return value


def conv_output_length(length, kernel, stride, padding, dilation):
    """Spatial output length of a convolution or pooling window (Keras' rule)."""
    effective = (kernel - 1) * dilation + 1
    if padding == "valid":
        return (length - effective) // stride + 1
    return (length + stride - 1) // stride


def conv(inputs, kernel, strides=1, padding="valid", dilation_rate=1, bias=None,
         activation=None):
    """N-d convolution (cross-correlation) as ``keras.ops.conv``, optionally fused with a
    bias and an activation (added and applied in place, one backward).

    Shapes: inputs (batch, *spatial, in), kernel (*kernel_size, in // groups, out),
    bias (out,) or None; ``groups = in // kernel.shape[-2]``. ``padding``: ``"valid"``,
    ``"same"`` or ``"causal"`` (1-d). ``activation``: None/``"linear"``, ``"relu"``,
    ``"sigmoid"`` or ``"tanh"``. Returns (batch, *out_spatial, out).
    """
    activation = check_fused_activation("conv", activation)
    backend = state.backend()
    x, w = data_of(inputs), data_of(kernel)
    b = None if bias is None else data_of(bias)
    rank = x.ndim - 2
    strides = _tuple(strides, rank, "strides")
    dilation = _tuple(dilation_rate, rank, "dilation_rate")
    groups = x.shape[-1] // w.shape[-2]
    out = backend.xp.empty(conv_output_shape(x.shape, w.shape, strides, padding, dilation,
                                             groups), dtype=x.dtype)
    # The batch runs in row blocks (on several threads with the NumPy engine): each block
    # does its im2col, GEMM, bias and activation while its rows are still in cache; within
    # a block, in chunks whose buffers fit the block's share of the workspace budget.
    blocks = backend.batch_blocks(x.shape[0], out.size)
    chunk = _chunk_rows(x.shape, w.shape, strides, padding, dilation, groups,
                        x.dtype.itemsize, len(blocks))

    def forward_rows(rows):
        for part in _chunks(rows, chunk):
            add_bias_and_activate(backend.conv_forward(x[part], w, strides, padding,
                                                       dilation, groups, out=out[part]),
                                  b, activation)

    backend.run_blocks(forward_rows, blocks)
    # what the backward reads of the output: ReLU's sign only, compact (the float output
    # goes once the next layer has run)
    if activation == "relu":
        kept, out_shape = backend.keep_sign(out), out.shape

        def kept_rows(rows):
            return backend.sign_rows(kept, rows, out_shape)
    else:
        kept = saved_output(out, activation)

        def kept_rows(rows):
            return None if kept is None else kept[rows]

    def backward(g, needs):
        grad_x = backend.xp.empty(x.shape, dtype=g.dtype) if needs[0] else None
        wants_bias = len(needs) > 2 and needs[2]

        def backward_chunk(rows):
            g_rows = activation_backward(g[rows], kept_rows(rows), activation)
            if needs[0]:
                grad_x[rows] = backend.conv_backward_input(g_rows, w, x[rows].shape, strides,
                                                           padding, dilation, groups)
            return (backend.conv_backward_kernel(x[rows], g_rows, w.shape, strides, padding,
                                                 dilation, groups) if needs[1] else None,
                    g_rows.sum(axis=tuple(range(g.ndim - 1))) if wants_bias else None)

        def backward_rows(rows):
            parts = [backward_chunk(part) for part in _chunks(rows, chunk)]
            return tuple(_sum_parts(column) if column[0] is not None else None
                         for column in zip(*parts))

        parts = backend.run_blocks(backward_rows, blocks)
        grad_w = _sum_parts([part[0] for part in parts]) if needs[1] else None
        grad_b = _sum_parts([part[1] for part in parts]) if wants_bias else None
        return grad_x, grad_w, grad_b

    operands = (inputs, kernel) if bias is None else (inputs, kernel, bias)
    return record(out, operands, backward, "conv")


def _chunk_rows(x_shape, kernel_shape, strides, padding, dilation, groups, itemsize,
                blocks):
    """How many samples a chunk of the batch holds: as many as fit each of ``blocks``
    concurrent row blocks' share of :func:`~lamina.backends.conv.conv_workspace_bytes`
    (at least one)."""
    per_sample = workspace_per_sample(x_shape, kernel_shape, strides, padding, dilation,
                                      groups, itemsize)
    return max(1, conv_workspace_bytes() // (blocks * max(per_sample, 1)))


def _chunks(rows, size):
    """The slice ``rows`` cut into consecutive slices of at most ``size`` rows."""
    return [slice(start, min(start + size, rows.stop))
            for start in range(rows.start, rows.stop, size)]


def _sum_parts(parts):
    """The sum of per-block gradients (the first part, summed into in place)."""
    total = parts[0]
    for part in parts[1:]:
        total += part
    return total


def depthwise_conv(inputs, kernel, strides=1, padding="valid", dilation_rate=1):
    """Depthwise convolution: kernel (*kernel_size, in, multiplier) -> (…, in * multiplier)."""
    w = data_of(kernel)
    flat_kernel = reshape(kernel, w.shape[:-2] + (1, w.shape[-2] * w.shape[-1]))
    return conv(inputs, flat_kernel, strides, padding, dilation_rate)


def conv_transpose(inputs, kernel, strides=1, padding="valid", dilation_rate=1):
    """Transposed convolution as ``keras.ops.conv_transpose``.

    Shapes: inputs (batch, *spatial, in), kernel (*kernel_size, out, in). Output spatial
    size (Keras' rule, with ``effective = (kernel - 1) * dilation + 1``):
    ``n * stride + max(effective - stride, 0)`` for ``"valid"``, ``n * stride`` for
    ``"same"``. The result is the gradient, with respect to its input, of the convolution
    of that output size by ``kernel`` (TensorFlow's ``conv_transpose``).
    """
    backend = state.backend()
    x, w = data_of(inputs), data_of(kernel)
    rank = x.ndim - 2
    strides = _tuple(strides, rank, "strides")
    dilation = _tuple(dilation_rate, rank, "dilation_rate")
    spatial = []
    for n, k, s, d in zip(x.shape[1:-1], w.shape[:-2], strides, dilation):
        effective = (k - 1) * d + 1
        spatial.append(n * s + max(effective - s, 0) if padding == "valid" else n * s)
    out_shape = (x.shape[0], *spatial, w.shape[-2])
    out = backend.conv_backward_input(x, w, out_shape, strides, padding, dilation, 1)

    def backward(g, needs):
        grad_x = grad_w = None
        if needs[0]:
            grad_x = backend.conv_forward(g, w, strides, padding, dilation, 1)
        if needs[1]:
            grad_w = backend.conv_backward_kernel(g, x, w.shape, strides, padding, dilation, 1)
        return grad_x, grad_w

    return record(out, (inputs, kernel), backward, "conv_transpose")


def pool(inputs, pool_size, strides=None, padding="valid", mode="max"):
    """N-d max (``mode="max"``) or average (``"average"``) pooling, channels-last."""
    backend = state.backend()
    x = data_of(inputs)
    rank = x.ndim - 2
    pool_size = _tuple(pool_size, rank, "pool_size")
    strides = pool_size if strides is None else _tuple(strides, rank, "strides")
    out = backend.xp.empty(pool_output_shape(x.shape, pool_size, strides, padding),
                           dtype=x.dtype)
    blocks = backend.batch_blocks(x.shape[0], out.size)
    # each block's context (max positions, window counts), by the block's first row
    contexts = dict(zip((rows.start for rows in blocks), backend.run_blocks(
        lambda rows: backend.pool_forward(x[rows], pool_size, strides, padding, mode,
                                          out=out[rows])[1], blocks)))

    shape = x.shape   # not x: the backward reads only the saved positions

    def backward(g, needs):
        grad = backend.xp.empty(shape, dtype=g.dtype)
        backend.run_blocks(lambda rows: backend.pool_backward(
            g[rows], contexts[rows.start], out=grad[rows]), blocks)
        return (grad,)

    return record(out, (inputs,), backward, f"{mode}_pool")


def max_pool(inputs, pool_size, strides=None, padding="valid"):
    """Max pooling (``keras.ops.max_pool``)."""
    return pool(inputs, pool_size, strides, padding, "max")


def average_pool(inputs, pool_size, strides=None, padding="valid"):
    """Average pooling (``keras.ops.average_pool``); padded cells are not counted."""
    return pool(inputs, pool_size, strides, padding, "average")


def separable_conv(inputs, depthwise_kernel, pointwise_kernel, strides=1, padding="valid",
                   data_format=None, dilation_rate=1):
    """Depthwise convolution followed by a 1x1 (pointwise) convolution, as
    ``keras.ops.separable_conv`` (channels-last)."""
    _check_channels_last("separable_conv", data_format)
    depthwise = depthwise_conv(inputs, depthwise_kernel, strides, padding, dilation_rate)
    return conv(depthwise, pointwise_kernel, 1, "valid", 1)


def _check_channels_last(name, data_format):
    # None is lamina.config.image_data_format(), as in Keras
    if state.standardize_data_format(data_format) != "channels_last":
        raise ValueError(f"{name}: lamina's convolution ops are channels-last; got "
                         f"data_format={data_format!r}")


def _space_depth(x, block_size, data_format, to_depth):
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"data_format must be 'channels_last' or 'channels_first', got "
                         f"{data_format!r}")
    if data_format == "channels_first":
        x = transpose(x, (0, 2, 3, 1))
    batch, height, width, channels = data_of(x).shape
    b = int(block_size)
    if to_depth:
        if height % b or width % b:
            raise ValueError(f"space_to_depth: height {height} and width {width} must be "
                             f"divisible by block_size {b}")
        blocks = reshape(x, (batch, height // b, b, width // b, b, channels))
        out = reshape(transpose(blocks, (0, 1, 3, 2, 4, 5)),
                      (batch, height // b, width // b, b * b * channels))
    else:
        if channels % (b * b):
            raise ValueError(f"depth_to_space: channels {channels} must be divisible by "
                             f"block_size ** 2 = {b * b}")
        blocks = reshape(x, (batch, height, width, b, b, channels // (b * b)))
        out = reshape(transpose(blocks, (0, 1, 3, 2, 4, 5)),
                      (batch, height * b, width * b, channels // (b * b)))
    return transpose(out, (0, 3, 1, 2)) if data_format == "channels_first" else out


def depth_to_space(x, block_size, data_format="channels_last"):
    """Move ``block_size x block_size`` blocks of channels into space (4-d images)."""
    return _space_depth(x, block_size, data_format, to_depth=False)


def space_to_depth(x, block_size, data_format="channels_last"):
    """Move ``block_size x block_size`` spatial blocks into channels (4-d images)."""
    return _space_depth(x, block_size, data_format, to_depth=True)

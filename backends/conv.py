"""Convolution kernels (im2col + GEMM), written against an array module ``xp``.

Every function takes the array module first (``numpy`` or ``cupy``) and uses only what
both provide (``xp.lib.stride_tricks.as_strided``, ``matmul``, ``einsum``, slicing), so
the CPU and GPU engines share this code.

Layout and semantics follow Keras: channels-last inputs ``(batch, *spatial, in)``,
kernels ``(*kernel_size, in // groups, out)``, cross-correlation, padding ``"valid"``,
``"same"`` (TensorFlow's rule: total padding
``max((out - 1) * stride + (k - 1) * dilation + 1 - n, 0)``, the odd cell after) or
``"causal"`` (1-d only: ``(k - 1) * dilation`` cells before), N-d strides and dilation,
grouped convolution (depthwise when ``groups == in``).

How it is computed (``M = batch * prod(out_spatial)``, ``T = prod(kernel_size)``):

* im2col: one strided *view* ``(batch, *out, *kernel_size, in)`` of the (padded, only
  when padding is non-zero) input, copied once into a contiguous ``(M, T * in)`` buffer
  (the innermost kernel axis and the channels are adjacent in memory, so the copy moves
  runs of ``kernel_width * in`` values);
* forward: one GEMM ``columns @ kernel`` (a batched GEMM over groups);
* backward-kernel: the same columns, one GEMM ``columns^T @ grad_output``;
* backward-input: one GEMM per kernel offset, ``grad_output @ kernel[offset]^T``
  (an ``(M, in)`` block), added straight into that offset's strided window of the input
  gradient while it is still in cache: col2im without ever materializing the
  ``(M, T * in)`` columns, and never a scatter over pixels (measured about 2x faster
  than one GEMM into the full columns followed by col2im, which is memory-bound);
* one input channel (``in == 1``, the first layer of an image model): the columns are
  laid out taps-major ``(T, M)``: each tap is one contiguous block copy, BLAS reads the
  transposed operand in place (``K = T`` is tiny, so the GEMMs are one pass each);
* depthwise (one input channel per group): no columns at all; each kernel offset is one
  elementwise multiply-add on a strided view.

All arithmetic stays in the input dtype (float32 in, float32 out).

Memory: the unfolded columns grow with the image (at 112x112x3, batch 64, a 3x3 layer
of 32 -> 64 channels unfolds to 207 MB). The conv op (:func:`lamina.ops.conv`) therefore
runs the batch in chunks whose buffers (:func:`workspace_per_sample` each) fit the
workspace budget, :func:`conv_workspace_bytes` (32 MiB unless set with
:func:`set_conv_workspace_bytes`, also ``lamina.config``): the results are the same (up to
float32 rounding of the kernel gradient, summed over chunks), the peak memory of a step no
longer grows with the batch. 32 MiB holds a whole block of W2's batch (28x28 images), so
small images run unchunked; at 112x112x3 it measured as fast as 64 MiB and lowered the
step's peak RSS by about 33 MB.
"""

import itertools
import threading

#: The default workspace budget of a convolution: 32 MiB.
DEFAULT_WORKSPACE_BYTES = 32 * 2 ** 20
_WORKSPACE = {"bytes": DEFAULT_WORKSPACE_BYTES}
_WORKSPACE_LOCK = threading.Lock()


def conv_workspace_bytes():
    """The most bytes of temporary buffers (im2col columns, padded copies, per-chunk
    gradients) one convolution, forward or backward, may hold at once; the batch runs in
    chunks that fit (one sample at a time when even one does not)."""
    return _WORKSPACE["bytes"]


def set_conv_workspace_bytes(value):
    """Set the workspace budget of every convolution (bytes, a positive int; the default
    is :data:`DEFAULT_WORKSPACE_BYTES`, 32 MiB). Larger budgets let bigger chunks of the
    batch run at once (fewer, larger GEMMs); smaller ones lower the peak memory."""
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"set_conv_workspace_bytes needs a positive int (bytes), "
                         f"got {value!r}")
    with _WORKSPACE_LOCK:
        _WORKSPACE["bytes"] = value

# ------------------------------------------------------------------- geometry


def as_tuple(value, rank, name):
    """``value`` (an int or a sequence of ``rank`` ints) as a tuple of ``rank`` ints; a
    ValueError naming argument ``name`` otherwise."""
    if isinstance(value, int) or hasattr(value, "__index__"):
        return (int(value),) * rank
    value = tuple(int(v) for v in value)
    if len(value) != rank:
        raise ValueError(f"{name} must be an int or a tuple of {rank} ints, got {value}")
    return value


def _padding_name(padding):
    name = str(padding).lower()
    if name not in ("valid", "same", "causal"):
        raise ValueError(f"padding must be 'valid', 'same' or 'causal', got {padding!r}")
    return name


def conv_geometry(spatial, kernel_size, strides, padding, dilation_rate):
    """Output sizes and ``(before, after)`` padding per spatial axis (Keras/TF rule).

    Args:
        spatial: input spatial sizes; kernel_size, strides, dilation_rate: tuples of the
        same length; padding: ``"valid"``, ``"same"`` or ``"causal"`` (1-d only).

    Returns:
        (out_spatial, pads) with ``pads[i] = (before, after)``.
    """
    padding = _padding_name(padding)
    if padding == "causal" and len(spatial) != 1:
        raise ValueError("'causal' padding is only defined for 1-d convolution")
    out, pads = [], []
    for n, k, s, d in zip(spatial, kernel_size, strides, dilation_rate):
        if k < 1 or s < 1 or d < 1:
            raise ValueError(f"kernel size, stride and dilation must be >= 1, got {k}, {s}, {d}")
        effective = (k - 1) * d + 1
        if padding == "valid":
            o = (n - effective) // s + 1 if n >= effective else 0
            before = after = 0
        elif padding == "same":
            o = -(-n // s)
            total = max((o - 1) * s + effective - n, 0)
            before, after = total // 2, total - total // 2
        else:  # causal
            o = -(-n // s)
            before, after = effective - 1, 0
        if o <= 0:
            raise ValueError(
                f"convolution window {effective} (kernel {k}, dilation {d}) is larger than "
                f"the input size {n} with padding {padding!r}")
        out.append(o)
        pads.append((before, after))
    return tuple(out), tuple(pads)


def _setup(x_shape, kernel_shape, strides, padding, dilation_rate, groups):
    rank = len(x_shape) - 2
    if len(kernel_shape) != rank + 2:
        raise ValueError(f"kernel of rank {len(kernel_shape)} for an input of rank "
                         f"{len(x_shape)}: expected (*kernel_size, in // groups, out)")
    strides = as_tuple(strides, rank, "strides")
    dilation = as_tuple(dilation_rate, rank, "dilation_rate")
    groups = int(groups)
    cin, cin_g, cout = x_shape[-1], kernel_shape[-2], kernel_shape[-1]
    if groups < 1 or cin != cin_g * groups or cout % groups:
        raise ValueError(f"input channels {cin}, kernel {tuple(kernel_shape)} and "
                         f"groups={groups} do not fit: need in == kernel.shape[-2] * groups "
                         f"and out divisible by groups")
    spatial = tuple(x_shape[1:-1])
    ksize = tuple(kernel_shape[:-2])
    out, pads = conv_geometry(spatial, ksize, strides, padding, dilation)
    return spatial, ksize, strides, dilation, out, pads


def conv_output_shape(x_shape, kernel_shape, strides, padding, dilation_rate, groups=1):
    """The shape :func:`conv_forward` returns; raises the same ``ValueError`` it would for
    arguments that do not fit."""
    out = _setup(x_shape, kernel_shape, strides, padding, dilation_rate, groups)[4]
    return (x_shape[0],) + tuple(out) + (kernel_shape[-1],)


def workspace_per_sample(x_shape, kernel_shape, strides, padding, dilation_rate, groups,
                         itemsize):
    """Bytes of temporary buffers one sample of the batch needs in the forward or the
    backward of :func:`conv_forward` (the larger): its im2col columns, the padded copies of
    its input and input gradient, and its share of the output gradient."""
    spatial, ksize, _, _, out, pads = _setup(x_shape, kernel_shape, strides, padding,
                                             dilation_rate, groups)
    cin, cout = x_shape[-1], kernel_shape[-1]
    positions, padded = prod(out), prod(_padded_shape(x_shape, pads)[1:-1])
    columns = 0 if _is_depthwise(cin, groups) else positions * prod(ksize) * cin
    input_side = (padded if padded != prod(spatial) else 0) + padded
    return itemsize * (columns + input_side * cin + 2 * positions * cout)


def prod(values):
    """The product of ``values`` as a Python int (1 for none)."""
    result = 1
    for v in values:
        result *= int(v)
    return result


# ----------------------------------------------------------- im2col helpers


def _interior(spatial, pads):
    """Index of the unpadded input inside the padded one."""
    return (slice(None),) + tuple(slice(b, b + n) for n, (b, _) in zip(spatial, pads)) + (
        slice(None),)


def _padded_shape(shape, pads):
    return (shape[0],) + tuple(n + b + a for n, (b, a) in zip(shape[1:-1], pads)) + (
        shape[-1],)


def _pad(xp, x, pads):
    """x with zero padding (x itself when there is none)."""
    if not any(b or a for b, a in pads):
        return x
    padded = xp.zeros(_padded_shape(x.shape, pads), dtype=x.dtype)
    padded[_interior(x.shape[1:-1], pads)] = x
    return padded


def _windows(xp, padded, ksize, out, strides, dilation):
    """The view ``(batch, *out, *ksize, channels)`` with
    ``[b, o, k, c] = padded[b, o * stride + k * dilation, c]`` (no copy)."""
    st = padded.strides
    rank = len(out)
    shape = (padded.shape[0],) + tuple(out) + tuple(ksize) + (padded.shape[-1],)
    steps = ((st[0],) + tuple(st[1 + i] * strides[i] for i in range(rank))
             + tuple(st[1 + i] * dilation[i] for i in range(rank)) + (st[-1],))
    return xp.lib.stride_tricks.as_strided(padded, shape, steps)


def _tap_windows(xp, windows, rank):
    """(tap, view (batch, *out, channels)) for every kernel offset of a windows view."""
    ksize = windows.shape[1 + rank:1 + 2 * rank]
    lead = (slice(None),) * (1 + rank)
    for tap in itertools.product(*[range(k) for k in ksize]):
        yield tap, windows[lead + tap]


def _tap_slices(tap, out, strides, dilation):
    """Index, into the padded input, of kernel offset ``tap`` for every output position."""
    return (slice(None),) + tuple(
        slice(k * d, k * d + (o - 1) * s + 1, s)
        for k, o, s, d in zip(tap, out, strides, dilation)) + (slice(None),)


def _columns(xp, x, ksize, out, strides, dilation, pads, groups):
    """im2col. Returns ``(M, T * in)`` (groups == 1, in > 1), ``(T, M)`` (in == 1) or
    ``(groups, M, T * in // groups)``; a view of x when no copy is needed."""
    windows = _windows(xp, _pad(xp, x, pads), ksize, out, strides, dilation)
    rank = len(out)
    batch, cin = x.shape[0], x.shape[-1]
    taps = prod(ksize)
    if groups == 1 and cin == 1:
        order = tuple(range(1 + rank, 1 + 2 * rank)) + tuple(range(1 + rank))
        return windows[..., 0].transpose(order).reshape(taps, -1)
    if groups == 1:
        return windows.reshape(-1, taps * cin)
    cin_g = cin // groups
    grouped = windows.reshape(windows.shape[:-1] + (groups, cin_g))
    order = (1 + 2 * rank,) + tuple(range(1 + 2 * rank)) + (2 + 2 * rank,)
    return grouped.transpose(order).reshape(groups, -1, taps * cin_g)


def _crop(xp, dx_padded, spatial, pads):
    if not any(b or a for b, a in pads):
        return dx_padded
    return xp.ascontiguousarray(dx_padded[_interior(spatial, pads)])


def _group_kernel(kernel, groups):
    """kernel (*k, c, out) -> (groups, T * c, out // groups) (a view)."""
    kdim = prod(kernel.shape[:-1])
    return kernel.reshape(kdim, groups, kernel.shape[-1] // groups).transpose(1, 0, 2)


def _is_depthwise(cin, groups):
    return groups > 1 and cin == groups


# -------------------------------------------------------------------- kernels


def conv_forward(xp, x, kernel, strides, padding, dilation_rate, groups=1, destination=None):
    """N-d channels-last convolution (cross-correlation, as Keras).

    Shapes: x (batch, *spatial, in), kernel (*kernel_size, in // groups, out).
    Returns (batch, *out_spatial, out) in x's dtype, written into ``destination`` (a
    C-contiguous array of that shape) when given.
    """
    spatial, ksize, strides, dilation, out, pads = _setup(
        x.shape, kernel.shape, strides, padding, dilation_rate, groups)
    batch, cin, cout = x.shape[0], x.shape[-1], kernel.shape[-1]
    kernel = kernel.astype(x.dtype, copy=False)
    out_shape = (batch,) + tuple(out) + (cout,)
    if _is_depthwise(cin, groups):
        result = _depthwise_forward(xp, x, kernel, ksize, out, strides, dilation, pads,
                                    groups)
    else:
        cols = _columns(xp, x, ksize, out, strides, dilation, pads, groups)
        if groups == 1:
            w = kernel.reshape(-1, cout)
            cols = cols.T if cin == 1 else cols                         # (M, T * in)
            if destination is not None:
                return xp.matmul(cols, w, out=destination.reshape(-1, cout)).reshape(out_shape)
            return (cols @ w).reshape(out_shape)
        result = xp.matmul(cols, _group_kernel(kernel, groups))         # (G, M, out/G)
        result = result.transpose(1, 0, 2).reshape(out_shape)
    if destination is None:
        return result
    destination[...] = result
    return destination


def conv_backward_input(xp, grad_output, kernel, input_shape, strides, padding,
                        dilation_rate, groups=1):
    """Gradient of :func:`conv_forward` with respect to x; returns ``input_shape``."""
    input_shape = tuple(int(v) for v in input_shape)
    spatial, ksize, strides, dilation, out, pads = _setup(
        input_shape, kernel.shape, strides, padding, dilation_rate, groups)
    _check_grad_shape(grad_output, input_shape, out, kernel.shape)
    batch, cin, cout = input_shape[0], input_shape[-1], kernel.shape[-1]
    kernel = kernel.astype(grad_output.dtype, copy=False)
    dx = xp.zeros(_padded_shape(input_shape, pads), dtype=grad_output.dtype)
    g = grad_output.reshape(-1, cout)                                  # (M, out)
    if _is_depthwise(cin, groups):
        _depthwise_backward_input(xp, dx, grad_output, kernel, ksize, out, strides,
                                  dilation, groups)
    elif groups == 1 and cin == 1:
        dcols = kernel.reshape(-1, cout) @ g.T                          # (T, M)
        for t, tap in enumerate(itertools.product(*[range(k) for k in ksize])):
            target = dx[_tap_slices(tap, out, strides, dilation)]
            target += dcols[t].reshape(target.shape)
    else:
        # One GEMM per kernel offset straight into that offset's window of dx: each
        # product (M, in) is added while it is still in cache (measured ~2x faster than
        # one big GEMM into (M, T * in) columns followed by col2im).
        cin_g, cout_g = cin // groups, cout // groups
        w = kernel.reshape(-1, cin_g, groups, cout_g).transpose(0, 2, 3, 1)  # (T, G, o, i)
        gg = g.reshape(-1, groups, cout_g).transpose(1, 0, 2)              # (G, M, o)
        dx_g = dx.reshape(dx.shape[:-1] + (groups, cin_g))
        product = None
        for t, tap in enumerate(itertools.product(*[range(k) for k in ksize])):
            target = dx_g[_tap_slices(tap, out, strides, dilation)]  # (b, *out, G, i)
            if groups == 1:
                product = xp.matmul(g, w[t, 0], out=product)               # (M, i)
                target += product.reshape(target.shape)
            else:
                product = xp.matmul(gg, w[t], out=product)                 # (G, M, i)
                target += xp.moveaxis(
                    product.reshape((groups, batch) + tuple(out) + (cin_g,)), 0, -2)
    return _crop(xp, dx, spatial, pads)


def conv_backward_kernel(xp, x, grad_output, kernel_shape, strides, padding,
                         dilation_rate, groups=1):
    """Gradient of :func:`conv_forward` with respect to the kernel; returns ``kernel_shape``."""
    kernel_shape = tuple(int(v) for v in kernel_shape)
    spatial, ksize, strides, dilation, out, pads = _setup(
        x.shape, kernel_shape, strides, padding, dilation_rate, groups)
    _check_grad_shape(grad_output, x.shape, out, kernel_shape)
    cin, cout = x.shape[-1], kernel_shape[-1]
    grad_output = grad_output.astype(x.dtype, copy=False)
    if _is_depthwise(cin, groups):
        return _depthwise_backward_kernel(xp, x, grad_output, kernel_shape, ksize, out,
                                          strides, dilation, pads, groups)
    cols = _columns(xp, x, ksize, out, strides, dilation, pads, groups)
    g = grad_output.reshape(-1, cout)                                  # (M, out)
    if groups == 1:
        dw = _reduce_gemm(xp, cols if cin == 1 else cols.T, g, x.shape[0])   # (T*in, out)
        return dw.reshape(kernel_shape)
    gg = g.reshape(-1, groups, cout // groups).transpose(1, 0, 2)      # (G, M, out/G)
    dw = xp.matmul(cols.transpose(0, 2, 1), gg)                        # (G, T*in/G, out/G)
    return dw.transpose(1, 0, 2).reshape(kernel_shape)


def _reduce_gemm(xp, a, b, batch):
    """``a @ b`` for a (K, M) and b (M, N) whose product is small and whose inner
    dimension M is long (the kernel gradient of a layer with few channels, e.g. the
    first layer of an image model: K = 9, N = 32, M = 86528). One GEMM there runs far
    below the machine's rate (little work to split between threads); a batched GEMM over
    chunks of M followed by a sum over the chunks measured 2-3x faster. Chunks are a
    divisor of the batch size of about 1024 rows each."""
    k, m = a.shape
    n = b.shape[1]
    if k * n > 4096 or m < 16384:
        return a @ b
    chunks = max(1, min(batch, m // 1024))
    while batch % chunks:
        chunks -= 1
    if chunks == 1:
        return a @ b
    a3 = a.reshape(k, chunks, m // chunks).transpose(1, 0, 2)   # (chunks, K, M/chunks)
    return xp.matmul(a3, b.reshape(chunks, m // chunks, n)).sum(axis=0)


def _check_grad_shape(grad_output, input_shape, out, kernel_shape):
    expected = (input_shape[0],) + tuple(out) + (kernel_shape[-1],)
    if tuple(grad_output.shape) != expected:
        raise ValueError(f"grad_output shape {tuple(grad_output.shape)} does not match the "
                         f"convolution output {expected}")


# ------------------------------------------------------------------ depthwise
# One input channel per group: out[..., g * m + j] = sum_k x[..., k, g] * w[k, 0, g*m + j].
# No GEMM to batch, so each kernel offset is an elementwise op on a strided view.


def _depthwise_forward(xp, x, kernel, ksize, out, strides, dilation, pads, groups):
    rank = len(out)
    mult = kernel.shape[-1] // groups
    w = kernel.reshape(-1, groups, mult)                               # (T, G, m)
    windows = _windows(xp, _pad(xp, x, pads), ksize, out, strides, dilation)
    result = None
    scratch = None
    for t, (_, view) in enumerate(_tap_windows(xp, windows, rank)):
        if mult == 1:
            if result is None:
                result = view * w[t, :, 0]
                continue
            scratch = xp.multiply(view, w[t, :, 0], out=scratch)
        else:
            if result is None:
                result = view[..., None] * w[t]
                continue
            scratch = xp.multiply(view[..., None], w[t], out=scratch)
        result += scratch
    return result.reshape((x.shape[0],) + tuple(out) + (groups * mult,))


def _depthwise_backward_input(xp, dx, grad_output, kernel, ksize, out, strides, dilation,
                              groups):
    mult = kernel.shape[-1] // groups
    w = kernel.reshape(-1, groups, mult)
    g = grad_output.reshape(grad_output.shape[:-1] + (groups, mult))
    for t, tap in enumerate(itertools.product(*[range(k) for k in ksize])):
        target = dx[_tap_slices(tap, out, strides, dilation)]
        if mult == 1:
            target += g[..., 0] * w[t, :, 0]
        else:
            target += (g * w[t]).sum(axis=-1)


def _depthwise_backward_kernel(xp, x, grad_output, kernel_shape, ksize, out, strides,
                               dilation, pads, groups):
    rank = len(out)
    mult = kernel_shape[-1] // groups
    windows = _windows(xp, _pad(xp, x, pads), ksize, out, strides, dilation)
    g = grad_output.reshape(-1, groups, mult)                          # (M, G, m)
    taps = []
    for _, view in _tap_windows(xp, windows, rank):
        flat = view.reshape(-1, groups)                                # (M, G)
        if mult == 1:
            taps.append(xp.einsum("mg,mg->g", flat, g[:, :, 0])[:, None])
        else:
            taps.append(xp.einsum("mg,mgj->gj", flat, g))
    return xp.stack(taps).reshape(kernel_shape)

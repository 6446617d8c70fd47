"""Convolution kernels and the ops on them: ``conv``, ``depthwise_conv``, ``conv_transpose``.

Forward results are compared with a plain-NumPy reference that loops over output pixels
(and, for the transposed convolution, a scatter-add loop over input pixels); gradients
with central finite differences in float64 through ``lamina.grad`` (the shared
``check_op`` harness, which also checks that float32 stays float32).
"""

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.backends import conv as conv_kernels

RNG = np.random.default_rng(11)


def rand(*shape):
    return RNG.uniform(-1.0, 1.0, size=shape)


# ------------------------------------------------------------------ references


def reference_padding(n, k, s, d, padding):
    """(out, before) for one axis: TF/Keras rule, written independently of the kernels."""
    effective = (k - 1) * d + 1
    if padding == "valid":
        return (n - effective) // s + 1, 0
    if padding == "causal":
        return int(np.ceil(n / s)), effective - 1
    out = int(np.ceil(n / s))
    total = max((out - 1) * s + effective - n, 0)
    return out, total // 2


def reference_conv(x, w, strides=1, padding="valid", dilation_rate=1):
    """Cross-correlation by explicit loops over output pixels, taps and groups."""
    rank = x.ndim - 2
    strides = (strides,) * rank if isinstance(strides, int) else tuple(strides)
    dilation = (dilation_rate,) * rank if isinstance(dilation_rate, int) else tuple(dilation_rate)
    ksize = w.shape[:-2]
    cin, cin_g, cout = x.shape[-1], w.shape[-2], w.shape[-1]
    groups = cin // cin_g
    cout_g = cout // groups
    geometry = [reference_padding(n, k, s, d, padding)
                for n, k, s, d in zip(x.shape[1:-1], ksize, strides, dilation)]
    out = np.zeros((x.shape[0],) + tuple(o for o, _ in geometry) + (cout,))
    for position in np.ndindex(*out.shape[1:-1]):
        for tap in np.ndindex(*ksize):
            index = []
            for p, k, s, d, (_, before), n in zip(position, tap, strides, dilation,
                                                  geometry, x.shape[1:-1]):
                index.append(p * s + k * d - before)
            if any(i < 0 or i >= n for i, n in zip(index, x.shape[1:-1])):
                continue
            pixel = x[(slice(None),) + tuple(index)]                # (batch, cin)
            for g in range(groups):
                out[(slice(None),) + position + (slice(g * cout_g, (g + 1) * cout_g),)] += (
                    pixel[:, g * cin_g:(g + 1) * cin_g] @ w[tap][:, g * cout_g:(g + 1) * cout_g])
    return out


def reference_depthwise(x, w, strides=1, padding="valid", dilation_rate=1):
    """Depthwise conv by loops: output channel c * multiplier + m reads input channel c."""
    cin, mult = w.shape[-2], w.shape[-1]
    out = []
    for c in range(cin):
        out.append(reference_conv(x[..., c:c + 1], w[..., c:c + 1, :], strides, padding,
                                  dilation_rate))
    return np.concatenate(out, axis=-1)


def reference_conv_transpose(x, w, strides=1, padding="valid", dilation_rate=1):
    """Scatter-add: every input pixel adds ``x[p] @ w[tap].T`` at ``p * s + tap * d``,
    then the result is cropped to Keras' output size."""
    rank = x.ndim - 2
    strides = (strides,) * rank if isinstance(strides, int) else tuple(strides)
    dilation = (dilation_rate,) * rank if isinstance(dilation_rate, int) else tuple(dilation_rate)
    ksize = w.shape[:-2]
    sizes, befores, full = [], [], []
    for n, k, s, d in zip(x.shape[1:-1], ksize, strides, dilation):
        effective = (k - 1) * d + 1
        length = n * s + max(effective - s, 0) if padding == "valid" else n * s
        total = max((n - 1) * s + effective - length, 0)
        sizes.append(length)
        befores.append(total // 2)
        full.append(max((n - 1) * s + effective, length + total // 2))
    buffer = np.zeros((x.shape[0],) + tuple(full) + (w.shape[-2],))
    for position in np.ndindex(*x.shape[1:-1]):
        for tap in np.ndindex(*ksize):
            index = tuple(p * s + k * d for p, k, s, d in zip(position, tap, strides, dilation))
            buffer[(slice(None),) + index] += x[(slice(None),) + position] @ w[tap].T
    crop = tuple(slice(b, b + n) for b, n in zip(befores, sizes))
    return buffer[(slice(None),) + crop]


# ------------------------------------------------------------- forward grids

CASES_2D = [(padding, strides, dilation)
            for padding in ("valid", "same")
            for strides in (1, 2, (2, 1))
            for dilation in (1, 2)
            if not (dilation == 2 and strides != 1)] + [("same", 2, 2), ("valid", (1, 2), 2)]
KERNELS_2D = {  # input has 4 channels
    "groups1": (3, 2, 4, 6),
    "groups2": (3, 2, 2, 6),
    "depthwise": (3, 2, 1, 4),
    "depthwise_x2": (3, 2, 1, 8),
}


@pytest.mark.parametrize("kernel", list(KERNELS_2D), ids=str)
@pytest.mark.parametrize("padding,strides,dilation", CASES_2D, ids=str)
def test_conv2d_forward_float32_matches_reference(kernel, padding, strides, dilation):
    x = rand(2, 7, 6, 4).astype(np.float32)
    w = rand(*KERNELS_2D[kernel]).astype(np.float32)
    rank_strides = (strides,) * 2 if isinstance(strides, int) else strides
    groups = 4 // w.shape[-2]
    got = conv_kernels.conv_forward(np, x, w, rank_strides, padding, (dilation,) * 2, groups)
    assert got.dtype == np.float32
    want = reference_conv(x.astype(np.float64), w.astype(np.float64), strides, padding,
                          dilation)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("groups", [1, 3])
@pytest.mark.parametrize("padding", ["valid", "same", "causal"])
@pytest.mark.parametrize("strides,dilation", [(1, 1), (2, 1), (1, 2), (2, 2)], ids=str)
def test_conv1d_forward_float32_matches_reference(groups, padding, strides, dilation):
    x = rand(3, 9, 3).astype(np.float32)
    w = rand(3, 3 // groups, 6).astype(np.float32)
    got = conv_kernels.conv_forward(np, x, w, (strides,), padding, (dilation,), groups)
    assert got.dtype == np.float32
    want = reference_conv(x.astype(np.float64), w.astype(np.float64), strides, padding,
                          dilation)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_conv3d_forward_matches_reference():
    x = rand(2, 4, 5, 3, 2)
    w = rand(2, 3, 2, 2, 3)
    for padding in ("valid", "same"):
        got = conv_kernels.conv_forward(np, x, w, (1, 2, 1), padding, (1, 1, 2), 1)
        want = reference_conv(x, w, (1, 2, 1), padding, (1, 1, 2))
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_single_input_channel_layout_matches_reference():
    """One input channel (the first layer of an image model) uses the taps-major layout."""
    x = rand(3, 8, 7, 1).astype(np.float32)
    w = rand(3, 3, 1, 5).astype(np.float32)
    for padding in ("valid", "same"):
        got = conv_kernels.conv_forward(np, x, w, (1, 1), padding, (1, 1), 1)
        want = reference_conv(x.astype(np.float64), w.astype(np.float64), 1, padding)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


# ------------------------------------------------------- gradients via the ops


GRAD_CASES_2D = [("valid", 1, 1), ("same", 1, 1), ("valid", 2, 1), ("same", 2, 1),
                 ("valid", 1, 2), ("same", 1, 2), ("same", 2, 2), ("same", (2, 1), 1)]


@pytest.mark.parametrize("kernel", list(KERNELS_2D), ids=str)
@pytest.mark.parametrize("padding,strides,dilation", GRAD_CASES_2D, ids=str)
def test_conv2d_op(check_op, kernel, padding, strides, dilation):
    kwargs = dict(strides=strides, padding=padding, dilation_rate=dilation)
    check_op(ops.conv, [rand(2, 6, 5, 4), rand(*KERNELS_2D[kernel])],
             reference=reference_conv, kwargs=kwargs)


@pytest.mark.parametrize("kernel_shape", [(3, 3, 6), (2, 1, 6)], ids=["groups1", "groups3"])
@pytest.mark.parametrize("padding", ["valid", "same", "causal"])
@pytest.mark.parametrize("strides,dilation", [(1, 1), (2, 1), (1, 2)], ids=str)
def test_conv1d_op(check_op, kernel_shape, padding, strides, dilation):
    kwargs = dict(strides=strides, padding=padding, dilation_rate=dilation)
    check_op(ops.conv, [rand(2, 8, 3), rand(*kernel_shape)], reference=reference_conv,
             kwargs=kwargs)


@pytest.mark.parametrize("activation", ["linear", "relu", "sigmoid", "tanh"])
def test_conv_fused_with_bias_and_activation(check_op, activation):
    activations = {"linear": lambda z: z, "relu": lambda z: np.maximum(z, 0),
                   "sigmoid": lambda z: 1 / (1 + np.exp(-z)), "tanh": np.tanh}

    def reference(x, kernel, bias):
        return activations[activation](reference_conv(x, kernel, padding="same") + bias)

    def fused(x, kernel, bias):
        return ops.conv(x, kernel, padding="same", bias=bias, activation=activation)

    check_op(fused, [rand(2, 5, 4, 3), rand(3, 3, 3, 4), rand(4)], reference=reference)


def test_conv3d_op(check_op):
    check_op(ops.conv, [rand(1, 4, 3, 3, 2), rand(2, 2, 2, 2, 2)], reference=reference_conv,
             kwargs=dict(strides=(1, 2, 1), padding="same"))


@pytest.mark.parametrize("padding,strides,dilation",
                         [("valid", 1, 1), ("same", 2, 1), ("same", 1, 2)], ids=str)
@pytest.mark.parametrize("multiplier", [1, 2])
def test_depthwise_conv_op(check_op, padding, strides, dilation, multiplier):
    kwargs = dict(strides=strides, padding=padding, dilation_rate=dilation)
    check_op(ops.depthwise_conv, [rand(2, 6, 5, 3), rand(3, 2, 3, multiplier)],
             reference=reference_depthwise, kwargs=kwargs)


@pytest.mark.parametrize("padding", ["valid", "same"])
@pytest.mark.parametrize("strides,dilation,ksize", [(1, 1, (3, 2)), (2, 1, (3, 2)),
                                                    (1, 2, (2, 2)), (3, 1, (2, 2)),
                                                    ((2, 1), 1, (3, 3))], ids=str)
def test_conv_transpose_op(check_op, padding, strides, dilation, ksize):
    kwargs = dict(strides=strides, padding=padding, dilation_rate=dilation)
    check_op(ops.conv_transpose, [rand(2, 3, 4, 3), rand(*ksize, 2, 3)],
             reference=reference_conv_transpose, kwargs=kwargs)


@pytest.mark.parametrize("padding", ["valid", "same"])
def test_conv_transpose_1d_op(check_op, padding):
    check_op(ops.conv_transpose, [rand(2, 5, 2), rand(3, 4, 2)],
             reference=reference_conv_transpose, kwargs=dict(strides=2, padding=padding))


def test_conv_transpose_output_size_follows_keras():
    x = np.zeros((1, 4, 4, 2), np.float32)
    w = np.zeros((2, 2, 3, 2), np.float32)
    # stride larger than the kernel: Keras' n * s + max(k - s, 0)
    assert ops.conv_transpose(x, w, strides=3, padding="valid").shape == (1, 12, 12, 3)
    assert ops.conv_transpose(x, w, strides=1, padding="valid").shape == (1, 5, 5, 3)
    assert ops.conv_transpose(x, w, strides=2, padding="same").shape == (1, 8, 8, 3)


# ------------------------------------------------- kernel-level consistency


def test_backward_kernels_are_adjoint_in_float32():
    """<conv(x, w), g> == <x, backward_input(g)> == <w, backward_kernel(x, g)>."""
    for shape, kshape, strides, padding, dilation in [
        ((3, 9, 8, 4), (3, 3, 2, 6), (2, 1), "same", (1, 2)),
        ((3, 9, 8, 1), (3, 3, 1, 5), (1, 1), "valid", (1, 1)),
        ((3, 9, 8, 4), (2, 3, 1, 4), (1, 2), "same", (2, 1)),
        ((3, 10, 4), (4, 4, 3), (3,), "causal", (1,)),
    ]:
        x = rand(*shape).astype(np.float32)
        w = rand(*kshape).astype(np.float32)
        groups = shape[-1] // kshape[-2]
        y = conv_kernels.conv_forward(np, x, w, strides, padding, dilation, groups)
        g = rand(*y.shape).astype(np.float32)
        dx = conv_kernels.conv_backward_input(np, g, w, x.shape, strides, padding, dilation,
                                              groups)
        dw = conv_kernels.conv_backward_kernel(np, x, g, w.shape, strides, padding, dilation,
                                               groups)
        assert y.dtype == dx.dtype == dw.dtype == np.float32
        assert dx.shape == x.shape and dw.shape == w.shape
        inner = float((y.astype(np.float64) * g).sum())
        assert np.isclose(inner, float((x.astype(np.float64) * dx).sum()), rtol=1e-4)
        assert np.isclose(inner, float((w.astype(np.float64) * dw).sum()), rtol=1e-4)


def test_kernel_gradient_of_a_long_thin_gemm():
    """Few channels and many output pixels (an image model's first layer): the kernel
    gradient is reduced in chunks; compare with a per-tap sum in float64."""
    x = rand(16, 34, 34, 1).astype(np.float32)
    g = rand(16, 32, 32, 8).astype(np.float32)
    dw = conv_kernels.conv_backward_kernel(np, x, g, (3, 3, 1, 8), (1, 1), "valid", (1, 1), 1)
    assert dw.dtype == np.float32 and dw.shape == (3, 3, 1, 8)
    want = np.zeros((3, 3, 1, 8))
    for i in range(3):
        for j in range(3):
            want[i, j] = np.einsum("bhwc,bhwo->co", x[:, i:i + 32, j:j + 32].astype(np.float64),
                                   g.astype(np.float64))
    np.testing.assert_allclose(dw, want, rtol=1e-4, atol=1e-3)


def test_float32_ops_give_float32_gradients():
    x = lamina.Tensor(rand(2, 6, 6, 2).astype(np.float32), requires_grad=True)
    w = lamina.Tensor(rand(3, 3, 2, 4).astype(np.float32), requires_grad=True)
    y = ops.conv(x, w, padding="same")
    assert y.dtype == np.float32
    gx, gw = lamina.grad(ops.sum(y * y), [x, w])
    assert gx.dtype == np.float32 and gw.dtype == np.float32


def test_bad_arguments_raise():
    x = np.zeros((1, 5, 5, 4), np.float32)
    with pytest.raises(ValueError):
        conv_kernels.conv_forward(np, x, np.zeros((3, 3, 3, 2), np.float32), (1, 1), "valid",
                                  (1, 1), 1)
    with pytest.raises(ValueError):
        conv_kernels.conv_forward(np, x, np.zeros((3, 3, 4, 2), np.float32), (1, 1), "causal",
                                  (1, 1), 1)
    with pytest.raises(ValueError):
        conv_kernels.conv_forward(np, x, np.zeros((3, 3, 4, 2), np.float32), (1, 1), "full",
                                  (1, 1), 1)


# ------------------------------------------------------------------ keras.ops extras
def test_separable_conv(check_op):
    rng = np.random.default_rng(3)
    x, depthwise, pointwise = (rng.standard_normal(s) for s in
                               [(1, 5, 5, 2), (3, 3, 2, 2), (1, 1, 4, 3)])

    def reference(v, d, p):
        return ops.conv(ops.depthwise_conv(v, d, 1, "same"), p).numpy()

    check_op(lambda v, d, p: ops.separable_conv(v, d, p, padding="same"),
             [x, depthwise, pointwise], reference=reference)
    with pytest.raises(ValueError, match="channels-last"):
        ops.separable_conv(x, depthwise, pointwise, data_format="channels_first")
    lamina.config.set_image_data_format("channels_first")   # what data_format=None means
    try:
        with pytest.raises(ValueError, match="channels-last"):
            ops.separable_conv(x, depthwise, pointwise)
    finally:
        lamina.config.set_image_data_format("channels_last")


def test_depth_to_space_and_back(check_op):
    # keras.ops.depth_to_space(np.arange(16.).reshape(1, 1, 2, 8), 2).reshape(-1) and
    # keras.ops.space_to_depth(np.arange(16.).reshape(1, 4, 4, 1), 2).reshape(-1) (Keras 3.15)
    np.testing.assert_array_equal(
        ops.depth_to_space(np.arange(16.0).reshape(1, 1, 2, 8), 2).numpy().reshape(-1),
        [0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15])
    np.testing.assert_array_equal(
        ops.nn.space_to_depth(np.arange(16.0).reshape(1, 4, 4, 1), 2).numpy().reshape(-1),
        [0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15])
    x = np.random.default_rng(4).standard_normal((2, 4, 6, 3))
    check_op(lambda v: ops.depth_to_space(ops.space_to_depth(v, 2), 2), [x],
             reference=lambda v: v)
    first = np.random.default_rng(5).standard_normal((1, 8, 2, 3))
    check_op(lambda v: ops.depth_to_space(v, 2, data_format="channels_first"), [first],
             reference=lambda v: np.transpose(ops.depth_to_space(
                 np.transpose(v, (0, 2, 3, 1)), 2).numpy(), (0, 3, 1, 2)))
    with pytest.raises(ValueError, match="divisible"):
        ops.space_to_depth(x[:, :3], 2)


# ------------------------------------------------------------------ workspace budget


@pytest.fixture
def workspace():
    """Set the convolution workspace budget for one test (restored afterwards)."""
    before = lamina.config.conv_workspace_bytes()
    yield lamina.config.set_conv_workspace_bytes
    lamina.config.set_conv_workspace_bytes(before)


def conv_step(x, w, b, **kwargs):
    """A conv op's output and the gradients of x, w and b (loss: a fixed projection)."""
    tensors = [lamina.Tensor(a, requires_grad=True) for a in (x, w, b)]
    y = ops.conv(tensors[0], tensors[1], bias=tensors[2], **kwargs)
    weights = np.cos(np.arange(y.numpy().size)).reshape(y.shape).astype(x.dtype)
    return [y.numpy()] + [g.numpy() for g in lamina.grad(ops.sum(y * weights), tensors)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", [
    ((7, 9, 8, 3), (3, 3, 3, 5), dict(padding="same", activation="relu")),
    ((6, 10, 10, 1), (3, 3, 1, 4), dict(strides=2, activation="tanh")),
    ((5, 8, 7, 4), (2, 3, 2, 6), dict(padding="same", dilation_rate=(2, 1))),
    ((5, 8, 8, 4), (3, 3, 1, 4), dict(padding="valid")),                   # depthwise
    ((4, 12, 3), (3, 3, 5), dict(padding="causal", activation="sigmoid")),
], ids=["same_relu", "one_channel_strided", "grouped_dilated", "depthwise", "causal_1d"])
def test_batch_chunks_give_the_unchunked_results(case, dtype, workspace):
    """A budget too small for one sample (chunks of one) equals the whole batch at once."""
    x_shape, w_shape, kwargs = case
    x, w = rand(*x_shape).astype(dtype), rand(*w_shape).astype(dtype)
    b = rand(w_shape[-1]).astype(dtype)
    whole = conv_step(x, w, b, **kwargs)
    workspace(1)
    chunked = conv_step(x, w, b, **kwargs)
    rtol = 2e-5 if dtype == "float32" else 1e-12
    for got, want in zip(chunked, whole):          # sums split differently: rounding only
        assert got.dtype == np.dtype(dtype)
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * np.abs(want).max())


def test_workspace_budget_is_a_positive_int(workspace):
    assert lamina.config.conv_workspace_bytes() == conv_kernels.DEFAULT_WORKSPACE_BYTES
    assert conv_kernels.DEFAULT_WORKSPACE_BYTES == 32 * 2 ** 20
    for bad in (0, -5, 1.5, True, "64MB"):
        with pytest.raises(ValueError, match="set_conv_workspace_bytes needs a positive int"):
            workspace(bad)
    workspace(1 << 30)
    assert lamina.config.conv_workspace_bytes() == 1 << 30


@pytest.mark.parametrize("x_shape,w_shape", [((64, 112, 112, 3), (3, 3, 3, 32)),
                                             ((64, 55, 55, 32), (3, 3, 32, 64))],
                         ids=["first_layer", "second_layer"])
def test_one_step_at_112x112_stays_within_the_budget(x_shape, w_shape):
    """W2's layers on 112x112x3 images, batch 64: unchunked, the columns alone are 84 MB
    (first layer) and 207 MB (second, 55x55x32 -> 64 channels). Forward and backward
    together hold at most the default 32 MiB of buffers beyond the arrays the step keeps
    (the output, the ReLU sign the backward reads, one bit a value, and the gradients of
    the input and the weights), as tracemalloc sees NumPy's allocations (the output
    gradient of ``ops.sum`` is a broadcast view)."""
    import tracemalloc

    rng = np.random.default_rng(3)
    x = rng.standard_normal(x_shape, dtype=np.float32)
    w = rng.standard_normal(w_shape, dtype=np.float32) * np.float32(0.05)
    b = np.zeros(w_shape[-1], dtype=np.float32)
    per_sample = conv_kernels.workspace_per_sample(x.shape, w.shape, (1, 1), "valid",
                                                   (1, 1), 1, 4)
    assert 64 * per_sample > 2 * conv_kernels.DEFAULT_WORKSPACE_BYTES     # unchunked
    tensors = [lamina.Tensor(a, requires_grad=True) for a in (x, w, b)]
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        y = ops.conv(tensors[0], tensors[1], bias=tensors[2], activation="relu")
        grads = lamina.grad(ops.sum(y), tensors)
        peak = tracemalloc.get_traced_memory()[1] - start
    finally:
        tracemalloc.stop()
    kept = y.numpy().nbytes + y.numpy().size // 8 + sum(g.numpy().nbytes for g in grads)
    assert peak - kept <= conv_kernels.DEFAULT_WORKSPACE_BYTES, (peak, kept)


def test_a_training_step_of_a_cnn_at_112x112_stays_within_a_stated_bound():
    """One ``train_on_batch`` of W2's model (Conv2D(32, 3, relu) -> MaxPool 2 -> Conv2D(64, 3,
    relu) -> MaxPool 2 -> Dense(128, relu) -> Dense(10), Adam) on 112x112x3 images, batch
    64, after a first step made the optimizer's slots. tracemalloc's peak of the step stays
    within what the step must hold at once plus the workspace budget: what the graph keeps
    of the forward pass (the pooled outputs, which the next layers' backward reads, the
    pools' int8 window offsets and the ReLU sign of both conv outputs, one bit a value:
    50 MB), then, in the second layer's backward, its output gradient (46 MB), its input
    gradient (25 MB) and the first Dense kernel's gradient (22 MB), and the batch rows fit
    gathers (10 MB); 186 MB in all. Measured 155 MB (294 MB while the graph kept every
    layer's float output); with the whole batch's im2col columns at once the second layer
    alone would add 207 MB."""
    import tracemalloc

    from lamina import layers

    batch, mb = 64, 4 * 64                              # float32 bytes per value per batch
    conv1, conv2 = 110 * 110 * 32, 53 * 53 * 64          # values per sample
    pool1, pool2 = 55 * 55 * 32, 26 * 26 * 64
    forward = mb * (pool1 + pool2) + batch * (pool1 + pool2) + batch * (conv1 + conv2) // 8
    backward = mb * (conv2 + pool1) + 4 * pool2 * 128
    bound = forward + backward + batch * 4 * 112 * 112 * 3 + lamina.config.conv_workspace_bytes()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, 112, 112, 3), dtype=np.float32)
    y = rng.integers(0, 10, size=batch)
    lamina.utils.set_random_seed(0)
    model = lamina.Sequential([
        layers.Input((112, 112, 3)), layers.Conv2D(32, 3, activation="relu"),
        layers.MaxPooling2D(2), layers.Conv2D(64, 3, activation="relu"),
        layers.MaxPooling2D(2), layers.Flatten(), layers.Dense(128, activation="relu"),
        layers.Dense(10)])
    model.compile(optimizer="adam",
                  loss=lamina.losses.SparseCategoricalCrossentropy(from_logits=True))
    first = model.train_on_batch(x, y)
    tracemalloc.start()
    try:
        second = model.train_on_batch(x, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert np.isfinite(first) and np.isfinite(second)
    assert peak <= bound, (peak, bound)

"""Pooling kernels and the ops on them: ``max_pool``, ``average_pool``, ``pool``.

Forward results are compared with a plain-NumPy reference that loops over output pixels;
gradients with central finite differences in float64 through ``lamina.grad`` (the shared
``check_op`` harness, which also checks that float32 stays float32).
"""

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.backends import pool as pool_kernels

RNG = np.random.default_rng(5)


def distinct(*shape):
    """Float64 data with all values different and well separated (no max ties)."""
    return RNG.permutation(np.prod(shape, dtype=int)).reshape(shape) * 0.05 - 1.0


def reference_pool(x, pool_size, strides=None, padding="valid", mode="max"):
    """Pooling by loops over output pixels; padded cells never take part (TF/Keras)."""
    rank = x.ndim - 2
    pool_size = (pool_size,) * rank if isinstance(pool_size, int) else tuple(pool_size)
    strides = pool_size if strides is None else (
        (strides,) * rank if isinstance(strides, int) else tuple(strides))
    outs, befores = [], []
    for n, p, s in zip(x.shape[1:-1], pool_size, strides):
        if padding == "valid":
            outs.append((n - p) // s + 1)
            befores.append(0)
        else:
            o = int(np.ceil(n / s))
            outs.append(o)
            befores.append(max((o - 1) * s + p - n, 0) // 2)
    out = np.zeros((x.shape[0],) + tuple(outs) + (x.shape[-1],))
    for position in np.ndindex(*outs):
        window = []
        for o, p, s, b, n in zip(position, pool_size, strides, befores, x.shape[1:-1]):
            start = o * s - b
            window.append(slice(max(start, 0), min(start + p, n)))
        cells = x[(slice(None),) + tuple(window)].reshape(x.shape[0], -1, x.shape[-1])
        out[(slice(None),) + position] = cells.max(axis=1) if mode == "max" else cells.mean(axis=1)
    return out


CASES_2D = [
    ((2, 2), None, "valid"),      # fast path, windows tile the input
    ((2, 2), None, "same"),       # odd sizes: padded
    ((3, 3), (2, 2), "valid"),    # overlapping windows
    ((3, 3), (2, 2), "same"),
    ((3, 2), (1, 1), "same"),
    ((2, 3), (3, 2), "valid"),    # gaps between windows
    ((3, 3), (3, 3), "same"),     # stride == pool with padding
]


@pytest.mark.parametrize("mode", ["max", "average"])
@pytest.mark.parametrize("pool_size,strides,padding", CASES_2D, ids=str)
@pytest.mark.parametrize("shape", [(2, 8, 6, 3), (2, 7, 5, 3)], ids=str)
def test_pool2d_forward_float32_matches_reference(mode, pool_size, strides, padding, shape):
    x = distinct(*shape).astype(np.float32)
    out, _ = pool_kernels.pool_forward(np, x, pool_size, strides, padding, mode)
    assert out.dtype == np.float32
    want = reference_pool(x.astype(np.float64), pool_size, strides, padding, mode)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", ["max", "average"])
@pytest.mark.parametrize("pool_size,strides,padding", CASES_2D, ids=str)
@pytest.mark.parametrize("shape", [(2, 8, 6, 3), (1, 7, 5, 2)], ids=str)
def test_pool2d_op(check_op, mode, pool_size, strides, padding, shape):
    op = ops.max_pool if mode == "max" else ops.average_pool
    check_op(lambda x: op(x, pool_size, strides, padding), [distinct(*shape)],
             reference=lambda x: reference_pool(x, pool_size, strides, padding, mode))


@pytest.mark.parametrize("mode", ["max", "average"])
@pytest.mark.parametrize("pool_size,strides,padding",
                         [(2, None, "valid"), (2, None, "same"), (3, 1, "same"),
                          (3, 2, "valid")], ids=str)
def test_pool1d_op(check_op, mode, pool_size, strides, padding):
    check_op(lambda x: ops.pool(x, pool_size, strides, padding, mode), [distinct(2, 9, 3)],
             reference=lambda x: reference_pool(x, pool_size, strides, padding, mode))


@pytest.mark.parametrize("mode", ["max", "average"])
def test_pool3d_op(check_op, mode):
    check_op(lambda x: ops.pool(x, 2, None, "same", mode), [distinct(1, 3, 4, 5, 2)],
             reference=lambda x: reference_pool(x, 2, None, "same", mode))


def test_max_pool_tie_sends_gradient_to_first_cell():
    x = lamina.Tensor(np.zeros((1, 4, 4, 1), np.float32), requires_grad=True)
    for strides in (None, (1, 1)):
        (g,) = lamina.grad(ops.sum(ops.max_pool(x, 2, strides)), [x])
        g = np.asarray(g)[0, :, :, 0]
        assert g.dtype == np.float32
        if strides is None:
            np.testing.assert_array_equal(g, np.kron(np.ones((2, 2)), [[1, 0], [0, 0]]))
        else:  # every 2x2 window of the 3x3 grid picks its top-left cell
            want = np.zeros((4, 4))
            want[:3, :3] = 1
            np.testing.assert_array_equal(g, want)


def test_max_pool_ignores_padding_with_negative_inputs():
    x = -1.0 - np.arange(9, dtype=np.float32).reshape(1, 3, 3, 1)
    out, context = pool_kernels.pool_forward(np, x, (2, 2), (2, 2), "same", "max")
    np.testing.assert_array_equal(out[0, :, :, 0], [[-1, -3], [-7, -9]])
    grad = pool_kernels.pool_backward(np, np.ones_like(out), context)
    assert grad.sum() == 4 and grad[0, 0, 0, 0] == 1 and grad[0, 2, 2, 0] == 1


def test_average_pool_counts_only_real_cells():
    x = np.ones((1, 5, 5, 2), np.float32)
    for strides in ((2, 2), (3, 3), (1, 1)):
        out, _ = pool_kernels.pool_forward(np, x, (3, 3), strides, "same", "average")
        np.testing.assert_allclose(out, 1.0, rtol=1e-6)
        assert out.dtype == np.float32


def test_fast_path_backward_float32_and_truncated_input():
    """Stride == pool size on an input the windows do not cover (W2's 11x11 -> 5x5)."""
    x = distinct(3, 11, 11, 4).astype(np.float32)
    g = RNG.standard_normal((3, 5, 5, 4)).astype(np.float32)
    for mode in ("max", "average"):
        out, context = pool_kernels.pool_forward(np, x, (2, 2), (2, 2), "valid", mode)
        dx = pool_kernels.pool_backward(np, g, context)
        assert out.dtype == dx.dtype == np.float32 and dx.shape == x.shape
        assert not dx[:, 10].any() and not dx[:, :, 10].any()
        # both poolings are linear in x along the recorded routing: <pool(x), g> = <x, dx>
        assert np.isclose((out * g).sum(), (x * dx).sum(), rtol=1e-4)
        if mode == "max":
            assert np.count_nonzero(dx) == g.size


def test_bad_arguments_raise():
    x = np.zeros((1, 4, 4, 1), np.float32)
    with pytest.raises(ValueError):
        pool_kernels.pool_forward(np, x, (2, 2), (2, 2), "causal", "max")
    with pytest.raises(ValueError):
        pool_kernels.pool_forward(np, x, (2, 2), (2, 2), "valid", "min")

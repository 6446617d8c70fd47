"""Array creation in ``lamina.ops`` (``backends/ops/creation.py``): filled arrays, ranges,
identity and triangular matrices, diagonals, grids, Vandermonde matrices and windows, with
Keras' default dtypes (``floatx()``; int32 for integer ``arange``), every engine."""

import numpy as np
import pytest

import lamina
from lamina import ops

RNG = np.random.default_rng(19)


def rand(*shape):
    return np.asarray(RNG.uniform(-2.0, 2.0, size=shape))


def test_filled(engine):
    for op, value in [(ops.zeros, 0.0), (ops.ones, 1.0), (ops.empty, 0.0)]:
        out = op((2, 3))
        assert out.shape == (2, 3) and out.dtype == np.float32
        np.testing.assert_array_equal(out.numpy(), value)
    assert ops.ones(4, dtype="int32").dtype == np.int32
    out = ops.full((2, 2), 7)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out.numpy(), 7)
    assert ops.full((2,), 1.5).dtype == np.float32
    np.testing.assert_array_equal(ops.full((2, 3), [1.0, 2.0, 3.0]).numpy(),
                                  [[1, 2, 3], [1, 2, 3]])


def test_like(engine):
    x = np.arange(6, dtype="int64").reshape(2, 3)
    for op, value in [(ops.zeros_like, 0), (ops.ones_like, 1), (ops.empty_like, 0)]:
        out = op(x)
        assert out.dtype == np.int64 and out.shape == (2, 3)
        np.testing.assert_array_equal(out.numpy(), value)
    out = ops.full_like(x, 2.5, dtype="float32")
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out.numpy(), 2.5)
    assert ops.zeros_like(lamina.Tensor(x, dtype="float32"), dtype="float64").dtype == np.float64


def test_arange(engine):
    out = ops.arange(5)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out.numpy(), np.arange(5))
    np.testing.assert_array_equal(ops.arange(2, 11, 3).numpy(), [2, 5, 8])
    out = ops.arange(0.0, 1.0, 0.25)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out.numpy(), [0.0, 0.25, 0.5, 0.75])
    assert ops.arange(3, dtype="float64").dtype == np.float64


def test_spaces(engine):
    out = ops.linspace(0.0, 1.0, num=5)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out.numpy(), np.linspace(0, 1, 5))
    values, step = ops.linspace(0.0, 2.0, num=4, endpoint=False, retstep=True)
    np.testing.assert_allclose(values.numpy(), [0.0, 0.5, 1.0, 1.5])
    assert step == 0.5
    np.testing.assert_allclose(ops.linspace([0.0, 1.0], [1.0, 3.0], num=3, axis=1).numpy(),
                               np.linspace([0.0, 1.0], [1.0, 3.0], num=3, axis=1))
    np.testing.assert_allclose(ops.logspace(0.0, 2.0, num=3).numpy(), [1.0, 10.0, 100.0],
                               rtol=1e-6)
    np.testing.assert_allclose(ops.logspace(0.0, 3.0, num=4, base=2).numpy(), [1, 2, 4, 8])
    np.testing.assert_allclose(ops.geomspace(1.0, 1000.0, num=4).numpy(), [1, 10, 100, 1000],
                               rtol=1e-5)


def test_matrices(engine):
    np.testing.assert_array_equal(ops.eye(3).numpy(), np.eye(3))
    np.testing.assert_array_equal(ops.eye(2, 4, k=1).numpy(), np.eye(2, 4, k=1))
    assert ops.eye(2).dtype == np.float32
    np.testing.assert_array_equal(ops.identity(3, dtype="int32").numpy(), np.identity(3))
    np.testing.assert_array_equal(ops.tri(3, 4, k=-1).numpy(), np.tri(3, 4, k=-1))


@pytest.mark.parametrize("k", [-1, 0, 2])
def test_tril_triu(check_op, k):
    check_op(lambda v: ops.tril(v, k), [rand(2, 3, 4)], reference=lambda v: np.tril(v, k))
    check_op(lambda v: ops.triu(v, k), [rand(3, 4)], reference=lambda v: np.triu(v, k))


@pytest.mark.parametrize("k", [-1, 0, 1])
def test_diag(check_op, k):
    check_op(lambda v: ops.diag(v, k), [rand(4)], reference=lambda v: np.diag(v, k))
    check_op(lambda v: ops.diag(v, k), [rand(3, 4)], reference=lambda v: np.diag(v, k))
    check_op(lambda v: ops.diagflat(v, k), [rand(2, 2)], reference=lambda v: np.diagflat(v, k))
    with pytest.raises(ValueError, match="1-d or 2-d"):
        ops.diag(rand(2, 2, 2))


@pytest.mark.parametrize("indexing", ["xy", "ij"])
def test_meshgrid(check_op, indexing):
    check_op(lambda a, b, c: ops.meshgrid(a, b, c, indexing=indexing),
             [rand(2), rand(3), rand(4)],
             reference=lambda a, b, c: np.meshgrid(a, b, c, indexing=indexing))
    check_op(lambda a, b: ops.meshgrid(a, b, indexing=indexing), [rand(2), rand(3)],
             reference=lambda a, b: np.meshgrid(a, b, indexing=indexing))


def test_vander(check_op):
    check_op(ops.vander, [rand(4)], reference=np.vander)
    check_op(lambda v: ops.vander(v, 3, increasing=True), [rand(4)],
             reference=lambda v: np.vander(v, 3, increasing=True))
    assert ops.vander(np.array([1, 2, 3])).dtype == np.float32


def test_windows(engine):
    for name in ["bartlett", "blackman", "hamming", "hanning"]:
        out = getattr(ops, name)(6)
        assert out.dtype == np.float32
        np.testing.assert_allclose(out.numpy(), getattr(np, name)(6), atol=1e-7)
    np.testing.assert_allclose(ops.kaiser(5, 3.0).numpy(), np.kaiser(5, 3.0), rtol=1e-6)

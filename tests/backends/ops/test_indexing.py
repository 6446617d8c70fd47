"""Gathers and scatters in ``lamina.ops`` (``backends/ops/indexing.py``): ``take_along_axis``,
``slice``/``slice_update``, ``scatter``/``scatter_update``, diagonals and traces, one-/multi-hot
encodings (Keras' ``axis`` and negative-label rules), ``unravel_index`` and the segment
reductions, every engine."""

import numpy as np
import pytest

import lamina
from lamina import ops

RNG = np.random.default_rng(23)


def rand(*shape):
    return np.asarray(RNG.uniform(-2.0, 2.0, size=shape))


def test_take_along_axis(check_op):
    x = rand(3, 4)
    order = np.argsort(x, axis=1)
    check_op(lambda v: ops.take_along_axis(v, order, axis=1), [x],
             reference=lambda v: np.take_along_axis(v, order, axis=1))
    repeated = np.array([[0, 0], [3, 3], [1, 0]])
    check_op(lambda v: ops.take_along_axis(v, repeated, axis=-1), [x],
             reference=lambda v: np.take_along_axis(v, repeated, axis=-1))
    flat = np.array([5, 0, 11, 5])
    check_op(lambda v: ops.take_along_axis(v, flat, axis=None), [x],
             reference=lambda v: np.take_along_axis(v.ravel(), flat, axis=0))
    # the other axes broadcast, as in Keras: one row of indices for every row of x
    check_op(lambda v: ops.take_along_axis(v, np.array([[2, 1]]), axis=1), [x],
             reference=lambda v: np.take_along_axis(v, np.array([[2, 1]] * 3), axis=1))


def test_slice_and_slice_update(check_op):
    check_op(lambda v: ops.slice(v, (1, 0, 2), (2, 3, 2)), [rand(3, 4, 5)],
             reference=lambda v: v[1:3, 0:3, 2:4])

    def update(v, u):
        out = v.copy()
        out[1:3, 2:4] = u
        return out

    check_op(lambda v, u: ops.slice_update(v, (1, 2), u), [rand(4, 5), rand(2, 2)],
             reference=update)
    with pytest.raises(ValueError, match="same length"):
        ops.slice(rand(2, 2), (0,), (1, 1))


def test_scatter(check_op):
    indices = np.array([[0, 1], [2, 0], [0, 1]])          # a duplicate: values add up

    def reference(values):
        out = np.zeros((3, 2, 4))
        np.add.at(out, (indices[:, 0], indices[:, 1]), values)
        return out

    check_op(lambda v: ops.scatter(indices, v, (3, 2, 4)), [rand(3, 4)], reference=reference)


def test_scatter_update(check_op):
    indices = np.array([[0, 1], [2, 3]])

    def replaced(v, u):
        out = v.copy()
        out[indices[:, 0], indices[:, 1]] = u
        return out

    def added(v, u):
        out = v.copy()
        np.add.at(out, (indices[:, 0], indices[:, 1]), u)
        return out

    check_op(lambda v, u: ops.scatter_update(v, indices, u), [rand(3, 4), rand(2)],
             reference=replaced)
    check_op(lambda v, u: ops.scatter_update(v, indices, u, reduction="add"),
             [rand(3, 4), rand(2)], reference=added)
    out = ops.scatter_update(np.ones((2, 2)), np.array([[0, 0]]), np.array([5.0]),
                             reduction="max")
    np.testing.assert_array_equal(out.numpy(), [[5.0, 1.0], [1.0, 1.0]])
    with pytest.raises(ValueError, match="reduction"):
        ops.scatter_update(np.ones(2), np.array([[0]]), np.array([1.0]), reduction="avg")


@pytest.mark.parametrize("offset,axis1,axis2", [(0, 0, 1), (1, 0, 1), (-1, 1, 2), (2, 2, 0)],
                         ids=str)
def test_diagonal_and_trace(check_op, offset, axis1, axis2):
    check_op(lambda v: ops.diagonal(v, offset, axis1, axis2), [rand(3, 4, 5)],
             reference=lambda v: np.diagonal(v, offset, axis1, axis2))
    check_op(lambda v: ops.trace(v, offset, axis1, axis2), [rand(3, 4, 5)],
             reference=lambda v: np.trace(v, offset, axis1, axis2))


def test_one_hot(engine):
    out = ops.one_hot(np.array([[0, 2], [1, 1]]), 3)
    assert out.dtype == np.dtype(lamina.backends.floatx())
    np.testing.assert_array_equal(out.numpy(), np.eye(3)[[[0, 2], [1, 1]]])
    assert ops.one_hot([2, 0], 4, dtype="int32").dtype == np.int32
    # keras.ops.one_hot(np.array([2, -1, 0]), 3): a negative label is all zeros
    np.testing.assert_array_equal(ops.one_hot(np.array([2, -1, 0]), 3).numpy(),
                                  [[0, 0, 1], [0, 0, 0], [1, 0, 0]])
    # keras.ops.one_hot(np.array([1, 0]), 3, axis=0) -> [[0, 1], [1, 0], [0, 0]]
    np.testing.assert_array_equal(ops.one_hot(np.array([1, 0]), 3, axis=0).numpy(),
                                  [[0, 1], [1, 0], [0, 0]])
    assert ops.one_hot(np.zeros((2, 5), "int32"), 3, axis=1).shape == (2, 3, 5)


def test_multi_hot(engine):
    # keras.ops.multi_hot(np.array([[0, 2], [1, 1]]), 4) (Keras 3.15)
    np.testing.assert_array_equal(ops.multi_hot(np.array([[0, 2], [1, 1]]), 4).numpy(),
                                  [[1, 0, 1, 0], [0, 1, 0, 0]])
    np.testing.assert_array_equal(ops.multi_hot(np.array([3, 0]), num_tokens=4).numpy(),
                                  [1, 0, 0, 1])
    assert ops.nn.multi_hot is ops.multi_hot


def test_unravel_index(engine):
    rows, cols = ops.unravel_index(np.array([1, 5, 7]), (2, 4))
    np.testing.assert_array_equal(rows.numpy(), [0, 1, 1])
    np.testing.assert_array_equal(cols.numpy(), [1, 1, 3])
    assert rows.dtype == np.int32


IDS = np.array([0, 3, 0, 1, -1, 2])         # -1: dropped, as Keras does


@pytest.mark.parametrize("op,ufunc,fill", [(ops.segment_sum, np.add, 0.0),
                                           (ops.segment_max, np.maximum, -np.inf),
                                           (ops.segment_min, np.minimum, np.inf)],
                         ids=["sum", "max", "min"])
def test_segments(check_op, op, ufunc, fill):
    def reference(data, segments=4):
        out = np.full((segments,) + data.shape[1:], fill)
        keep = IDS >= 0
        ufunc.at(out, IDS[keep], data[keep])
        return out

    check_op(lambda d: op(d, IDS, num_segments=4), [rand(6, 3)], reference=reference)
    check_op(lambda d: op(d, IDS), [rand(6)], reference=reference)
    empty = op(rand(6), IDS, num_segments=6).numpy()[4:]     # segments nobody names
    np.testing.assert_array_equal(empty, [fill, fill])


def test_segment_max_ties_share_the_gradient(engine):
    x = lamina.Tensor(np.array([2.0, 2.0, 1.0]), requires_grad=True)
    (g,) = lamina.grad(ops.sum(ops.segment_max(x, np.array([0, 0, 0]))), [x])
    np.testing.assert_array_equal(g.numpy(), [0.5, 0.5, 0.0])


def test_segment_prod(engine):
    out = ops.segment_prod(np.array([2.0, 3.0, 4.0]), np.array([0, 1, 0]))
    np.testing.assert_array_equal(out.numpy(), [8.0, 3.0])
    x = lamina.Tensor(np.array([2.0, 3.0]), requires_grad=True)
    with pytest.raises(NotImplementedError, match="segment_prod"):
        lamina.grad(ops.sum(ops.segment_prod(x, np.array([0, 0]))), [x])

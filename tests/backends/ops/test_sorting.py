"""Sorting, ranking and counting in ``lamina.ops`` (``backends/ops/sorting.py``): sorted and
top-k values with gradients, int32 indices and counts as Keras returns them, every engine."""

import numpy as np
import pytest

import lamina
from lamina import ops

RNG = np.random.default_rng(31)


def distinct(*shape):
    return RNG.permutation(np.prod(shape, dtype=int)).reshape(shape) * 0.1 - 1.0


@pytest.mark.parametrize("axis", [-1, 0, None], ids=str)
def test_sort_and_argsort(check_op, axis):
    x = distinct(3, 4)
    check_op(lambda v: ops.sort(v, axis=axis), [x], reference=lambda v: np.sort(v, axis=axis))
    order = ops.argsort(x, axis=axis)
    assert order.dtype == np.int32
    np.testing.assert_array_equal(order.numpy(), np.argsort(x, axis=axis))


def test_argsort_ties_keep_order(engine):
    np.testing.assert_array_equal(ops.argsort(np.array([2.0, 1.0, 2.0, 1.0])).numpy(),
                                  [1, 3, 0, 2])


def test_top_k(check_op):
    # keras.ops.top_k(np.array([3., 1, 2]), 2) -> values [3., 2.], indices [0, 2]
    values, indices = ops.top_k(np.array([3.0, 1.0, 2.0]), 2)
    np.testing.assert_array_equal(values.numpy(), [3.0, 2.0])
    np.testing.assert_array_equal(indices.numpy(), [0, 2])
    assert indices.dtype == np.int32
    x = distinct(2, 5)
    check_op(lambda v: ops.top_k(v, 3)[0], [x],
             reference=lambda v: -np.sort(-v, axis=-1)[:, :3])
    with pytest.raises(ValueError, match="k must be"):
        ops.top_k(x, 6)


def test_in_top_k(engine):
    predictions = np.array([[0.1, 0.5, 0.4], [0.3, 0.3, 0.4], [0.7, 0.2, 0.1]])
    out = ops.in_top_k(np.array([2, 0, 2]), predictions, 1)
    np.testing.assert_array_equal(out.numpy(), [False, False, False])
    # classes tied with the k-th score count as inside (TensorFlow's rule)
    np.testing.assert_array_equal(ops.in_top_k(np.array([2, 0, 1]), predictions, 2).numpy(),
                                  [True, True, True])


def test_argpartition(engine):
    x = distinct(7)
    out = ops.argpartition(x, 3).numpy()
    assert x[out[3]] == np.sort(x)[3]
    assert (x[out[:3]] <= x[out[3]]).all() and (x[out[4:]] >= x[out[3]]).all()


def test_searchsorted_digitize(engine):
    sequence = np.array([1.0, 2.0, 2.0, 5.0])
    values = np.array([0.0, 2.0, 6.0])
    for side in ("left", "right"):
        out = ops.searchsorted(sequence, values, side=side)
        assert out.dtype == np.int32
        np.testing.assert_array_equal(out.numpy(), np.searchsorted(sequence, values, side=side))
    # keras.ops.digitize(np.array([0.5, 1.5, 2.5]), [1., 2.]) -> [0, 1, 2] (int32)
    out = ops.digitize(np.array([0.5, 1.5, 2.5]), [1.0, 2.0])
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out.numpy(), [0, 1, 2])


def test_bincount(check_op):
    # keras.ops.bincount(np.array([0, 1, 1, 3])) -> [1, 2, 0, 1] (int32)
    out = ops.bincount(np.array([0, 1, 1, 3]))
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out.numpy(), [1, 2, 0, 1])
    np.testing.assert_array_equal(ops.bincount(np.array([1]), minlength=4).numpy(), [0, 1, 0, 0])
    np.testing.assert_array_equal(ops.bincount(np.array([[0, 1], [2, 2]])).numpy(),
                                  [[1, 1, 0], [0, 0, 2]])
    labels = np.array([0, 2, 2, 1, 0])
    check_op(lambda w: ops.bincount(labels, weights=w), [np.linspace(0.5, 2.5, 5)],
             reference=lambda w: np.bincount(labels, weights=w))


def test_unique(engine):
    # keras.ops.unique(np.array([3, 1, 3])) -> [1, 3]
    np.testing.assert_array_equal(ops.unique(np.array([3, 1, 3])).numpy(), [1, 3])
    x = np.array([[3, 1], [3, 2]])
    values, index, inverse, counts = ops.unique(x, return_index=True, return_inverse=True,
                                                return_counts=True)
    want = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    for got, expected in zip((values, index, inverse, counts), want):
        np.testing.assert_array_equal(got.numpy(), expected)
    assert counts.dtype == np.int32
    values, inverse = ops.unique(np.array([3, 1, 3, 2]), sorted=False, return_inverse=True)
    np.testing.assert_array_equal(values.numpy(), [3, 1, 2])
    np.testing.assert_array_equal(values.numpy()[inverse.numpy()], [3, 1, 3, 2])
    np.testing.assert_array_equal(ops.unique(np.array([4, 4, 5]), size=4, fill_value=-1).numpy(),
                                  [4, 5, -1, -1])


def test_histogram(engine):
    # keras.ops.histogram(np.array([1., 2, 2, 3]), bins=3) -> counts [1, 2, 1],
    # edges [1, 1.6667, 2.3333, 3]
    counts, edges = ops.histogram(np.array([1.0, 2.0, 2.0, 3.0]), bins=3)
    np.testing.assert_array_equal(counts.numpy(), [1, 2, 1])
    np.testing.assert_allclose(edges.numpy(), [1.0, 5 / 3, 7 / 3, 3.0])
    counts, _ = ops.histogram(np.array([0.5, 9.0]), bins=2, range=(0.0, 10.0))
    np.testing.assert_array_equal(counts.numpy(), [1, 1])
    with pytest.raises(ValueError, match="bins"):
        ops.histogram(np.ones(3), bins=0)


def test_sorted_values_follow_the_gradient(engine):
    x = lamina.Tensor(np.array([3.0, 1.0, 2.0]), requires_grad=True)
    (g,) = lamina.grad(ops.sum(ops.sort(x) * np.array([1.0, 10.0, 100.0])), [x])
    np.testing.assert_array_equal(g.numpy(), [100.0, 1.0, 10.0])

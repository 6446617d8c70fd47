"""Comparisons, logical ops, predicates, ``where`` (also Keras' one-argument form),
``nonzero`` and ``select`` in ``lamina.ops`` (``backends/ops/logic.py``), every engine."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import lamina
from lamina import ops

RNG = np.random.default_rng(13)


def rand(*shape):
    return np.asarray(RNG.uniform(-2.0, 2.0, size=shape))


@pytest.mark.parametrize("op,reference", [
    (ops.equal, np.equal), (ops.not_equal, np.not_equal), (ops.greater, np.greater),
    (ops.greater_equal, np.greater_equal), (ops.less, np.less),
    (ops.less_equal, np.less_equal), (ops.logical_and, np.logical_and),
    (ops.logical_or, np.logical_or), (ops.logical_xor, np.logical_xor),
], ids=lambda v: getattr(v, "__name__", ""))
def test_comparisons(engine, op, reference):
    a = np.array([[1.0, 2.0, 0.0], [3.0, 2.0, 1.0]])
    b = np.array([2.0, 2.0, 0.0])
    out = op(lamina.Tensor(a, requires_grad=True), b)
    assert out.dtype == np.bool_
    assert out.node is None
    np.testing.assert_array_equal(out.numpy(), reference(a, b))
    np.testing.assert_array_equal(op(a, 2.0).numpy(), reference(a, 2.0))


@pytest.mark.parametrize("op,reference", [
    (ops.logical_not, np.logical_not), (ops.isnan, np.isnan), (ops.isinf, np.isinf),
    (ops.isfinite, np.isfinite), (ops.isposinf, np.isposinf), (ops.isneginf, np.isneginf),
    (ops.isreal, np.isreal), (ops.signbit, np.signbit),
], ids=lambda v: getattr(v, "__name__", ""))
def test_predicates(engine, op, reference):
    x = np.array([1.5, -0.0, 0.0, np.nan, np.inf, -np.inf, -2.0])
    out = op(x)
    assert out.dtype == np.bool_
    np.testing.assert_array_equal(out.numpy(), reference(x))


def test_isclose_allclose_isin(engine):
    a, b = np.array([1.0, 2.0, np.nan]), np.array([1.0 + 1e-9, 2.1, np.nan])
    np.testing.assert_array_equal(ops.isclose(a, b).numpy(), [True, False, False])
    np.testing.assert_array_equal(ops.isclose(a, b, equal_nan=True, atol=0.2).numpy(),
                                  [True, True, True])
    assert not bool(ops.allclose(a, b)) and bool(ops.allclose(a[:1], b[:1]))
    np.testing.assert_array_equal(ops.isin(np.array([[1, 5], [3, 2]]), [2, 3]).numpy(),
                                  [[False, False], [True, True]])
    np.testing.assert_array_equal(ops.isin(np.array([1, 5]), [5], invert=True).numpy(),
                                  [True, False])


def test_where(check_op):
    condition = RNG.random((3, 1, 4)) > 0.5
    check_op(ops.where, [condition, rand(2, 4), rand(3, 2, 1)], reference=np.where)
    check_op(lambda a: ops.where(condition, a, 0.0), [rand(3, 2, 4)],
             reference=lambda a: np.where(condition, a, 0.0))


def test_where_of_two_numbers_is_floatx(engine):
    assert ops.where(np.array([True, False]), 1.0, 0.0).dtype == np.float32


def test_where_one_argument_returns_indices(engine):
    condition = np.array([[1, 0], [0, 1]])
    # keras.ops.where(c) gives the indices of the true elements: rows [0, 1], columns [0, 1]
    # (Keras' NumPy/JAX backends: a tuple, one int32 array per axis)
    rows, cols = ops.where(condition)
    assert rows.dtype == np.int32
    np.testing.assert_array_equal(rows.numpy(), [0, 1])
    np.testing.assert_array_equal(cols.numpy(), [0, 1])
    x = lamina.Tensor(np.array([[5.0, 6.0], [7.0, 8.0]]))
    np.testing.assert_array_equal(x[ops.where(condition)].numpy(), [5.0, 8.0])
    for got, want in zip(ops.nonzero(condition), np.nonzero(condition)):
        np.testing.assert_array_equal(got.numpy(), want)
    with pytest.raises(ValueError, match="both x1 and x2"):
        ops.where(condition, 1.0)


def test_select(check_op):
    x = np.array([-2.0, -0.5, 0.5, 2.0])
    conditions = [x < -1, x > 1]
    check_op(lambda a, b: ops.select(conditions, [a, b], default=0.25), [rand(4), rand(4)],
             reference=lambda a, b: np.select(conditions, [a, b], default=0.25))
    with pytest.raises(ValueError, match="same length"):
        ops.select(conditions, [x])


SETTINGS = settings(max_examples=30, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


def signed_values(shape, seed):
    rng = np.random.default_rng(seed)
    return np.asarray(rng.uniform(0.5, 2.0, size=shape) * rng.choice([-1.0, 1.0], size=shape))


@SETTINGS
@given(shapes=mutually_broadcastable_shapes(num_shapes=3, max_dims=3, max_side=3),
       seed=st.integers(0, 2**16))
def test_where_broadcasts(check_op, shapes, seed):
    condition_shape, first, second = shapes.input_shapes
    condition = np.random.default_rng(seed).random(condition_shape) > 0.5
    (out,) = check_op(ops.where, [condition, signed_values(first, seed + 1),
                                  signed_values(second, seed + 2)],
                      reference=np.where)
    assert out.shape == shapes.result_shape

"""Elementwise math, reductions, matmul and comparisons in ``lamina.ops``
(``backends/ops/math.py``, every engine), with a property test: binary ops and ``where`` on
random broadcast-compatible shapes give NumPy's forward and gradients of each input's shape
that match finite differences."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import lamina
from lamina import ops

RNG = np.random.default_rng(7)


def rand(*shape, low=-2.0, high=2.0):
    """Float64 test data, uniform in [low, high)."""
    return np.asarray(RNG.uniform(low, high, size=shape))


def away_from_zero(*shape):
    """Float64 data with |x| in [0.5, 2) and random signs (safe divisors, no kinks)."""
    return rand(*shape, low=0.5, high=2.0) * RNG.choice([-1.0, 1.0], size=shape)


def distinct(*shape):
    """Float64 data whose values are all different (no ties for max/min)."""
    return RNG.permutation(np.prod(shape, dtype=int)).reshape(shape) * 0.1 - 1.0


# ------------------------------------------------------------------ binary arithmetic
BINARY = [
    (ops.add, np.add),
    (ops.subtract, np.subtract),
    (ops.multiply, np.multiply),
    (ops.divide, np.divide),
    (ops.maximum, np.maximum),
    (ops.minimum, np.minimum),
]
SHAPE_PAIRS = [
    ((3, 4), (3, 4)),
    ((3, 1, 4), (2, 4)),
    ((4,), (2, 3, 1)),
    ((), (2, 3)),
    ((2, 1), (1, 3)),
]


@pytest.mark.parametrize("op,reference", BINARY, ids=[op.__name__ for op, _ in BINARY])
@pytest.mark.parametrize("shapes", SHAPE_PAIRS, ids=str)
def test_binary_broadcasting(check_op, op, reference, shapes):
    check_op(op, [rand(*shapes[0]), away_from_zero(*shapes[1])], reference=reference)


@pytest.mark.parametrize("op,reference", BINARY, ids=[op.__name__ for op, _ in BINARY])
def test_binary_with_python_scalar(check_op, op, reference):
    check_op(lambda x: op(x, 1.5), [rand(2, 3)], reference=lambda x: reference(x, 1.5))
    check_op(lambda x: op(-0.75, x), [away_from_zero(2, 3)],
             reference=lambda x: reference(-0.75, x))


def test_maximum_tie_sends_gradient_to_first(engine):
    a = lamina.Tensor(np.array([1.0, 2.0]), requires_grad=True)
    b = lamina.Tensor(np.array([1.0, 3.0]), requires_grad=True)
    ga, gb = lamina.grad(ops.sum(ops.maximum(a, b)), [a, b])
    np.testing.assert_array_equal(ga.numpy(), [1.0, 0.0])
    np.testing.assert_array_equal(gb.numpy(), [0.0, 1.0])


def test_power(check_op):
    base = rand(2, 3, low=0.5, high=2.0)
    check_op(ops.power, [base, rand(2, 3)], reference=np.power)
    check_op(ops.power, [base, rand(3)], reference=np.power)
    check_op(lambda x: ops.power(x, 3), [rand(2, 3)], reference=lambda x: x ** 3)
    check_op(lambda x: ops.power(2.0, x), [rand(4)], reference=lambda x: 2.0 ** x)


# ------------------------------------------------------------------ unary math
UNARY = [
    (ops.negative, np.negative, rand),
    (ops.square, np.square, rand),
    (ops.sqrt, np.sqrt, lambda *s: rand(*s, low=0.2, high=3.0)),
    (ops.abs, np.abs, away_from_zero),
    (ops.exp, np.exp, rand),
    (ops.log, np.log, lambda *s: rand(*s, low=0.2, high=3.0)),
    (ops.log1p, np.log1p, lambda *s: rand(*s, low=-0.8, high=3.0)),
    (ops.tanh, np.tanh, rand),
]


@pytest.mark.parametrize("op,reference,data", UNARY, ids=[op.__name__ for op, _, _ in UNARY])
def test_unary(check_op, op, reference, data):
    check_op(op, [data(3, 4)], reference=reference)
    check_op(op, [data()], reference=reference)


def test_clip(check_op):
    x = np.array([[-3.0, -1.2, -0.4], [0.3, 1.1, 2.7]])
    (out,) = check_op(lambda v: ops.clip(v, -1.0, 1.0), [x],
                      reference=lambda v: np.clip(v, -1.0, 1.0))
    assert out.min() == -1.0 and out.max() == 1.0


def test_where(check_op):
    condition = RNG.random((3, 1, 4)) > 0.5
    check_op(ops.where, [condition, rand(2, 4), rand(3, 2, 1)], reference=np.where)
    check_op(lambda a: ops.where(condition, a, 0.0), [rand(3, 2, 4)],
             reference=lambda a: np.where(condition, a, 0.0))


def test_cast_to_float64(check_op):
    (out,) = check_op(lambda x: ops.cast(x, "float64"), [rand(2, 3)], reference=lambda x: x,
                      check_float32=False)
    assert out.dtype == np.float64


def test_cast_to_float32_gradient_is_cast_back(engine):
    x = lamina.Tensor(rand(2, 3), requires_grad=True)
    y = ops.cast(x, "float32")
    assert y.dtype == np.float32
    np.testing.assert_array_equal(y.numpy(), x.numpy().astype(np.float32))
    upstream = np.arange(6, dtype=np.float32).reshape(2, 3) / 7
    (gx,) = lamina.grad(y, [x], output_gradient=upstream)
    assert gx.dtype == np.float64
    np.testing.assert_array_equal(gx.numpy(), upstream.astype(np.float64))


def test_cast_to_int_has_no_gradient(engine):
    x = lamina.Tensor(np.array([1.7, -2.2]), requires_grad=True)
    y = ops.cast(x, "int32")
    np.testing.assert_array_equal(y.numpy(), [1, -2])
    assert y.dtype == np.int32
    (gx,) = lamina.grad(ops.sum(ops.cast(y, "float64") * 1.0), [x])
    np.testing.assert_array_equal(gx.numpy(), [0.0, 0.0])


# ------------------------------------------------------------------ reductions
AXES = [None, 0, -1, 1, (0, 2), (-1, 0)]
REDUCTIONS = [
    (ops.sum, np.sum),
    (ops.mean, np.mean),
    (ops.max, np.max),
    (ops.min, np.min),
    (ops.var, np.var),
    (ops.std, np.std),
]


@pytest.mark.parametrize("op,reference", REDUCTIONS, ids=[op.__name__ for op, _ in REDUCTIONS])
@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduction(check_op, op, reference, axis, keepdims):
    check_op(op, [distinct(2, 3, 4)], kwargs={"axis": axis, "keepdims": keepdims},
             reference=reference)


def test_max_ties_share_gradient(engine):
    x = lamina.Tensor(np.array([[1.0, 3.0, 3.0], [2.0, 0.0, 1.0]]), requires_grad=True)
    (gx,) = lamina.grad(ops.max(x, axis=1), [x])
    np.testing.assert_array_equal(gx.numpy(), [[0.0, 0.5, 0.5], [1.0, 0.0, 0.0]])


# ------------------------------------------------------------------ matmul
MATMUL_SHAPES = [
    ((3, 4), (4, 2)),
    ((2, 3, 4), (2, 4, 5)),
    ((2, 3, 4), (4, 5)),
    ((3, 4), (2, 4, 5)),
    ((2, 1, 3, 4), (5, 4, 2)),
    ((4,), (4, 2)),
    ((3, 4), (4,)),
    ((4,), (4,)),
    ((4,), (2, 4, 3)),
    ((2, 3, 4), (4,)),
]


@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
def test_matmul(check_op, shapes):
    check_op(ops.matmul, [rand(*shapes[0]), rand(*shapes[1])], reference=np.matmul)


# ------------------------------------------------------------------ no-gradient ops
def test_argmax_argmin(engine):
    x = np.array([[1.0, 5.0, 3.0], [7.0, 0.0, 2.0]])
    np.testing.assert_array_equal(ops.argmax(x).numpy(), [1, 0])
    np.testing.assert_array_equal(ops.argmax(x, axis=0).numpy(), [1, 0, 0])
    np.testing.assert_array_equal(ops.argmin(x).numpy(), [0, 1])
    np.testing.assert_array_equal(ops.argmin(x, axis=0).numpy(), [0, 1, 1])
    assert ops.argmax(lamina.Tensor(x, requires_grad=True)).node is None


@pytest.mark.parametrize("op,reference", [
    (ops.equal, np.equal), (ops.not_equal, np.not_equal), (ops.greater, np.greater),
    (ops.greater_equal, np.greater_equal), (ops.less, np.less),
    (ops.less_equal, np.less_equal),
], ids=lambda v: getattr(v, "__name__", ""))
def test_comparisons(engine, op, reference):
    a = np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]])
    b = np.array([2.0, 2.0, 2.0])
    out = op(lamina.Tensor(a, requires_grad=True), b)
    assert out.dtype == np.bool_
    assert out.node is None
    np.testing.assert_array_equal(out.numpy(), reference(a, b))
    np.testing.assert_array_equal(op(a, 2.0).numpy(), reference(a, 2.0))


# ------------------------------------------------------------------ Python operators
OPERATORS = [
    ("add", lambda a, b: a + b),
    ("radd", lambda a, b: 2.5 + b),
    ("sub", lambda a, b: a - b),
    ("rsub", lambda a, b: 2.5 - b),
    ("mul", lambda a, b: a * b),
    ("rmul", lambda a, b: 2.5 * b),
    ("truediv", lambda a, b: a / b),
    ("rtruediv", lambda a, b: 2.5 / b),
    ("pow", lambda a, b: abs(a) ** b),
    ("rpow", lambda a, b: 2.5 ** b),
    ("neg", lambda a, b: -a),
    ("getitem", lambda a, b: a[1:, ::2] * b[0, :2]),
]


@pytest.mark.parametrize("expression", [e for _, e in OPERATORS], ids=[n for n, _ in OPERATORS])
def test_python_operators(check_op, expression):
    check_op(expression, [away_from_zero(2, 3), away_from_zero(2, 3)], reference=expression)


def test_matmul_operators(check_op):
    check_op(lambda a, b: a @ b, [rand(2, 3), rand(3, 4)], reference=np.matmul)
    (out,) = check_op(lambda w, a: w @ a, [rand(4, 2), rand(2, 3)], wrt=[1],
                      reference=np.matmul)  # w stays a NumPy array: Tensor.__rmatmul__
    assert out.shape == (4, 3)


def test_numpy_array_on_the_left_gives_a_tensor(engine):
    t = lamina.Tensor(np.array([1.0, 2.0]), requires_grad=True)
    w = np.array([3.0, 4.0])
    for result, expected in [(w * t, [3.0, 8.0]), (w + t, [4.0, 6.0]), (w - t, [2.0, 2.0]),
                             (w / t, [3.0, 2.0])]:
        assert isinstance(result, lamina.Tensor)
        assert result.node is not None
        np.testing.assert_allclose(result.numpy(), expected)
    (gt,) = lamina.grad(ops.sum(w * t), [t])
    np.testing.assert_array_equal(gt.numpy(), w)


def test_comparison_operators_and_asarray(engine):
    t = lamina.Tensor(np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(np.asarray(t < 2.0), [True, False, False])
    np.testing.assert_array_equal(np.asarray(t >= 2.0), [False, True, True])
    values = np.asarray(t)
    assert isinstance(values, np.ndarray)
    np.testing.assert_array_equal(values, [1.0, 2.0, 3.0])
    assert np.asarray(t, dtype=np.float32).dtype == np.float32
    assert float(ops.sum(t)) == 6.0


# ------------------------------------------------------------------ property test: broadcasting
SETTINGS = settings(max_examples=30, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


def signed_values(shape, seed):
    """Float64 values with |x| in [0.5, 2) and random signs: safe divisors, rare ties."""
    rng = np.random.default_rng(seed)
    return np.asarray(rng.uniform(0.5, 2.0, size=shape) * rng.choice([-1.0, 1.0], size=shape))


@pytest.mark.parametrize("op,reference", BINARY, ids=[op.__name__ for op, _ in BINARY])
@SETTINGS
@given(shapes=mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3),
       seed=st.integers(0, 2**16))
def test_binary_ops_broadcast(check_op, op, reference, shapes, seed):
    first, second = shapes.input_shapes
    (out,) = check_op(op, [signed_values(first, seed), signed_values(second, seed + 1)],
                      reference=reference)
    assert out.shape == shapes.result_shape


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

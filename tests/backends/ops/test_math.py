"""Binary elementwise arithmetic, ``clip``, ``matmul`` and the Python operators in
``lamina.ops`` (``backends/ops/math.py``, every engine), with a property test: binary ops on
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


BINARY_MORE = [
    (ops.arctan2, np.arctan2),
    (ops.hypot, np.hypot),
    (ops.logaddexp, np.logaddexp),
    (ops.logaddexp2, np.logaddexp2),
    (ops.fmax, np.fmax),
    (ops.fmin, np.fmin),
    (ops.true_divide, np.true_divide),
    (ops.divide_no_nan, np.divide),
]


@pytest.mark.parametrize("op,reference", BINARY_MORE,
                         ids=[op.__name__ for op, _ in BINARY_MORE])
@pytest.mark.parametrize("shapes", SHAPE_PAIRS[:3], ids=str)
def test_more_binary(check_op, op, reference, shapes):
    check_op(op, [rand(*shapes[0]), away_from_zero(*shapes[1])], reference=reference)


def test_mod_and_fmod(check_op):
    # keras.ops.mod(np.array([-7., 7]), 3.) -> [2., 1.]; floor_divide(.., 2.) -> [-4., 3.]
    np.testing.assert_array_equal(ops.mod(np.array([-7.0, 7.0]), 3.0).numpy(), [2.0, 1.0])
    np.testing.assert_array_equal(ops.floor_divide(np.array([-7.0, 7.0]), 2.0).numpy(),
                                  [-4.0, 3.0])
    x = np.array([[-2.3, 1.7, 0.4], [3.1, -0.6, 2.2]])
    divisor = np.array([0.7, -1.3, 0.9])
    check_op(ops.mod, [x, divisor], reference=np.mod)
    check_op(ops.fmod, [x, divisor], reference=np.fmod)


def test_divide_no_nan_zero_divisor(check_op):
    x = lamina.Tensor(np.array([1.0, 2.0, 3.0]), requires_grad=True)
    y = lamina.Tensor(np.array([2.0, 0.0, -1.0]), requires_grad=True)
    out = ops.divide_no_nan(x, y)
    np.testing.assert_array_equal(out.numpy(), [0.5, 0.0, -3.0])
    gx, gy = lamina.grad(ops.sum(out), [x, y])
    np.testing.assert_array_equal(gx.numpy(), [0.5, 0.0, -1.0])
    np.testing.assert_array_equal(gy.numpy(), [-0.25, 0.0, -3.0])


def test_fmax_ignores_nan(engine):
    np.testing.assert_array_equal(ops.fmax(np.array([np.nan, 1.0]), np.array([2.0, np.nan]))
                                  .numpy(), [2.0, 1.0])


def test_ldexp_and_no_gradient_ops(check_op):
    check_op(lambda v: ops.ldexp(v, np.array([1, -2, 3])), [rand(2, 3)],
             reference=lambda v: np.ldexp(v, np.array([1, -2, 3])))
    a, b = np.array([12, 18, -7]), np.array([8, 12, 3])
    for op, reference in [(ops.gcd, np.gcd), (ops.lcm, np.lcm), (ops.bitwise_and, np.bitwise_and),
                          (ops.bitwise_or, np.bitwise_or), (ops.bitwise_xor, np.bitwise_xor),
                          (ops.left_shift, np.left_shift), (ops.right_shift, np.right_shift),
                          (ops.bitwise_left_shift, np.left_shift),
                          (ops.bitwise_right_shift, np.right_shift)]:
        np.testing.assert_array_equal(op(a, b % 4).numpy(), reference(a, b % 4))
    np.testing.assert_array_equal(ops.bitwise_invert(a).numpy(), ~a)
    np.testing.assert_array_equal(ops.bitwise_not(a).numpy(), ~a)
    x = np.array([-1.5, 0.0, 2.0])
    np.testing.assert_array_equal(ops.heaviside(x, 0.5).numpy(), np.heaviside(x, 0.5))
    np.testing.assert_array_equal(ops.nextafter(x, 10.0).numpy(), np.nextafter(x, 10.0))
    assert ops.floor_divide(lamina.Tensor(x, requires_grad=True), 2.0).node is None


def test_clip(check_op):
    x = np.array([[-3.0, -1.2, -0.4], [0.3, 1.1, 2.7]])
    (out,) = check_op(lambda v: ops.clip(v, -1.0, 1.0), [x],
                      reference=lambda v: np.clip(v, -1.0, 1.0))
    assert out.min() == -1.0 and out.max() == 1.0


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

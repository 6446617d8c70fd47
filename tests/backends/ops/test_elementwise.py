"""Unary elementwise math in ``lamina.ops`` (``backends/ops/elementwise.py``): forward against
NumPy, gradients against finite differences on every engine, dtype rules (integer input
gives ``floatx()`` for the float-only functions), and the no-gradient rounding ops."""

import numpy as np
import pytest

import lamina
from lamina import ops

RNG = np.random.default_rng(3)


def rand(*shape, low=-2.0, high=2.0):
    """Float64 test data, uniform in [low, high)."""
    return np.asarray(RNG.uniform(low, high, size=shape))


def positive(*shape):
    return rand(*shape, low=0.2, high=3.0)


def unit(*shape):
    return rand(*shape, low=-0.9, high=0.9)


def away_from_zero(*shape):
    return rand(*shape, low=0.3, high=2.0) * RNG.choice([-1.0, 1.0], size=shape)


UNARY = [
    (ops.negative, np.negative, rand),
    (ops.square, np.square, rand),
    (ops.sqrt, np.sqrt, positive),
    (ops.rsqrt, lambda v: 1 / np.sqrt(v), positive),
    (ops.cbrt, np.cbrt, away_from_zero),
    (ops.reciprocal, np.reciprocal, away_from_zero),
    (ops.abs, np.abs, away_from_zero),
    (ops.absolute, np.abs, away_from_zero),
    (ops.fabs, np.fabs, away_from_zero),
    (ops.exp, np.exp, rand),
    (ops.exp2, np.exp2, rand),
    (ops.expm1, np.expm1, rand),
    (ops.log, np.log, positive),
    (ops.log1p, np.log1p, lambda *s: rand(*s, low=-0.8, high=3.0)),
    (ops.log2, np.log2, positive),
    (ops.log10, np.log10, positive),
    (ops.sin, np.sin, rand),
    (ops.cos, np.cos, rand),
    (ops.tan, np.tan, unit),
    (ops.arcsin, np.arcsin, unit),
    (ops.arccos, np.arccos, unit),
    (ops.arctan, np.arctan, rand),
    (ops.sinh, np.sinh, rand),
    (ops.cosh, np.cosh, rand),
    (ops.tanh, np.tanh, rand),
    (ops.arcsinh, np.arcsinh, rand),
    (ops.arccosh, np.arccosh, lambda *s: rand(*s, low=1.2, high=3.0)),
    (ops.arctanh, np.arctanh, unit),
    (ops.deg2rad, np.deg2rad, rand),
    (ops.rad2deg, np.rad2deg, rand),
    (ops.sinc, np.sinc, away_from_zero),
    (ops.real, np.real, rand),
    (ops.conj, np.conj, rand),
    (ops.conjugate, np.conjugate, rand),
]


@pytest.mark.parametrize("op,reference,data", UNARY, ids=[op.__name__ for op, _, _ in UNARY])
def test_unary(check_op, op, reference, data):
    check_op(op, [data(3, 4)], reference=reference)
    check_op(op, [data()], reference=reference)


def test_erf(check_op):
    from scipy.special import erf, erfc

    check_op(ops.erf, [rand(3, 4)], reference=erf)
    check_op(ops.erfc, [rand(3, 4)], reference=erfc)


def test_erfinv_and_i0(check_op):
    from scipy.special import erfinv, i0

    check_op(ops.erfinv, [rand(3, 4, low=-0.9, high=0.9)], reference=erfinv)
    check_op(ops.i0, [rand(3, 4, low=-3.0, high=3.0)], reference=i0)
    # keras.ops.erfinv / i0 (KERAS_BACKEND=torch) printed these for the same inputs
    np.testing.assert_allclose(ops.erfinv(np.array([-0.5, -0.2, 0.0, 0.3, 0.9])).numpy(),
                               [-0.47694, -0.17914, 0.0, 0.27246, 1.16309], atol=1e-5)
    np.testing.assert_allclose(ops.i0(np.array([-2.0, 0.0, 0.5, 3.0])).numpy(),
                               [2.27959, 1.0, 1.06348, 4.88079], atol=1e-5)
    assert ops.i0(np.array([1, 2])).dtype == np.float32


def test_sinc_at_zero(check_op):
    check_op(ops.sinc, [np.array([0.0, 0.5, -1.5])], reference=np.sinc)


@pytest.mark.parametrize("name", ["sin", "exp", "sqrt", "log1p", "tanh", "erf"])
def test_integer_input_gives_floatx(engine, name):
    out = getattr(ops, name)(np.array([1, 2, 3]))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out.numpy(), getattr(ops, name)(np.array([1.0, 2.0, 3.0])).numpy())


def test_square_and_abs_keep_integers(engine):
    assert ops.square(np.array([2, -3])).dtype.kind == "i"
    np.testing.assert_array_equal(ops.abs(np.array([2, -3])).numpy(), [2, 3])


@pytest.mark.parametrize("op,reference", [
    (ops.sign, np.sign), (ops.floor, np.floor), (ops.ceil, np.ceil), (ops.trunc, np.trunc),
    (ops.round, np.round),
], ids=lambda v: getattr(v, "__name__", ""))
def test_piecewise_constant(engine, op, reference):
    x = np.array([-2.5, -1.5, -0.4, 0.0, 0.5, 1.5, 2.7])
    t = lamina.Tensor(x, requires_grad=True)
    out = op(t)
    np.testing.assert_array_equal(out.numpy(), reference(x))
    assert out.node is None                       # no gradient
    (g,) = lamina.grad(ops.sum(ops.multiply(out, 1.0)) + ops.sum(t * 0.0), [t])
    np.testing.assert_array_equal(g.numpy(), 0.0)


def test_round_decimals_half_to_even(engine):
    # keras.ops.round(np.array([0.5, 1.5, 2.5])) -> [0., 2., 2.] (Keras 3.15)
    np.testing.assert_array_equal(ops.round(np.array([0.5, 1.5, 2.5])).numpy(), [0.0, 2.0, 2.0])
    np.testing.assert_allclose(ops.round(np.array([1.234, -5.678]), decimals=1).numpy(),
                               [1.2, -5.7])


def test_nan_to_num(check_op):
    x = np.array([1.5, np.nan, np.inf, -np.inf, -0.5])
    out = ops.nan_to_num(x, nan=9.0, posinf=7.0, neginf=-7.0)
    np.testing.assert_array_equal(out.numpy(), [1.5, 9.0, 7.0, -7.0, -0.5])
    finite = np.finfo(np.float64)
    np.testing.assert_array_equal(ops.nan_to_num(x).numpy(),
                                  [1.5, 0.0, finite.max, finite.min, -0.5])
    t = lamina.Tensor(x, requires_grad=True)
    (g,) = lamina.grad(ops.sum(ops.nan_to_num(t)), [t])
    np.testing.assert_array_equal(g.numpy(), [1.0, 0.0, 0.0, 0.0, 1.0])
    check_op(ops.nan_to_num, [rand(3, 2)], reference=np.nan_to_num)


def test_imag_and_angle(engine):
    x = np.array([-2.0, 0.0, 3.0])
    np.testing.assert_array_equal(ops.imag(x).numpy(), [0.0, 0.0, 0.0])
    np.testing.assert_allclose(ops.angle(x).numpy(), np.angle(x))

"""Reductions in ``lamina.ops`` (``backends/ops/reductions.py``): sums, means, extrema,
variances, products, logsumexp, cumulative ops, quantiles, weighted means, the NaN-ignoring
variants and the index/boolean reductions, against NumPy, with finite-difference
gradients on every engine and Keras' defaults (``argmax(axis=None)`` flattens)."""

import numpy as np
import pytest
from scipy.special import logsumexp as scipy_logsumexp

import lamina
from lamina import ops

RNG = np.random.default_rng(5)


def rand(*shape, low=-2.0, high=2.0):
    return np.asarray(RNG.uniform(low, high, size=shape))


def distinct(*shape):
    """Float64 data whose values are all different (no ties for max/min/sort)."""
    return RNG.permutation(np.prod(shape, dtype=int)).reshape(shape) * 0.1 - 1.0


AXES = [None, 0, -1, 1, (0, 2), (-1, 0)]
REDUCTIONS = [
    (ops.sum, np.sum),
    (ops.mean, np.mean),
    (ops.max, np.max),
    (ops.min, np.min),
    (ops.amax, np.amax),
    (ops.amin, np.amin),
    (ops.ptp, np.ptp),
    (ops.var, np.var),
    (ops.std, np.std),
    (ops.prod, np.prod),
    (ops.logsumexp, scipy_logsumexp),
    (ops.median, np.median),
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


def test_max_initial(check_op):
    check_op(lambda v: ops.max(v, axis=1, initial=0.5), [rand(3, 4)],
             reference=lambda v: np.max(v, axis=1, initial=0.5))
    check_op(lambda v: ops.min(v, axis=0, initial=-0.5), [rand(3, 4)],
             reference=lambda v: np.min(v, axis=0, initial=-0.5))


def test_prod_gradient_with_zeros(check_op):
    x = np.array([[0.0, 2.0, 3.0], [0.0, 0.0, 1.5], [1.0, -2.0, 0.5]])
    check_op(lambda v: ops.prod(v, axis=1), [x], reference=lambda v: np.prod(v, axis=1))
    check_op(ops.prod, [x[2:]], reference=np.prod)


def test_logsumexp_is_stable(engine):
    out = ops.logsumexp(np.array([1000.0, 1000.0]))
    np.testing.assert_allclose(out.numpy(), 1000.0 + np.log(2.0))
    # keras.ops.logsumexp(np.array([1., 2.])) -> 2.3133 (Keras 3.15)
    np.testing.assert_allclose(ops.logsumexp(np.array([1.0, 2.0])).numpy(), 2.3132617, rtol=1e-6)


@pytest.mark.parametrize("op,reference", [(ops.cumsum, np.cumsum), (ops.cumprod, np.cumprod)],
                         ids=["cumsum", "cumprod"])
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_cumulative(check_op, op, reference, axis):
    check_op(op, [rand(3, 4)], kwargs={"axis": axis}, reference=reference)


def test_cumprod_gradient_with_zeros(check_op):
    x = np.array([[1.5, 0.0, 2.0, -1.0], [0.0, 0.0, 3.0, 0.5]])
    check_op(lambda v: ops.cumprod(v, axis=1), [x], reference=lambda v: np.cumprod(v, axis=1))


def test_cumsum_integer_and_dtype(engine):
    # keras.ops.cumsum([[1, 2], [3, 4]]) -> [1, 3, 6, 10] (flattened, Keras 3.15)
    np.testing.assert_array_equal(ops.cumsum(np.array([[1, 2], [3, 4]])).numpy(), [1, 3, 6, 10])
    assert ops.cumsum(np.array([1, 2]), dtype="float32").dtype == np.float32


@pytest.mark.parametrize("q", [0.0, 0.3, 0.5, 1.0, [0.1, 0.75]], ids=str)
@pytest.mark.parametrize("method", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("axis,keepdims", [(None, False), (1, False), ((0, 2), True)], ids=str)
def test_quantile(check_op, q, method, axis, keepdims):
    kwargs = {"axis": axis, "method": method, "keepdims": keepdims}
    check_op(lambda v: ops.quantile(v, q, **kwargs), [distinct(2, 5, 3)],
             reference=lambda v: np.quantile(v, q, **kwargs))
    check_op(lambda v: ops.percentile(v, np.multiply(q, 100.0), **kwargs), [distinct(2, 5, 3)],
             reference=lambda v: np.percentile(v, np.multiply(q, 100.0), **kwargs))


def test_quantile_checks_q(engine):
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        ops.quantile(rand(4), 1.5)
    with pytest.raises(ValueError, match="method"):
        ops.quantile(rand(4), 0.5, method="cubic")


def test_median_keras(engine):
    # keras.ops.median(np.array([[1., 2, 3], [4, 5, 7]]), axis=1) -> [2., 5.] (Keras 3.15)
    np.testing.assert_array_equal(ops.median(np.array([[1.0, 2, 3], [4, 5, 7]]), axis=1).numpy(),
                                  [2.0, 5.0])


def test_average(check_op):
    check_op(lambda v, w: ops.average(v, axis=1, weights=w), [rand(3, 4), rand(4, low=0.5)],
             reference=lambda v, w: np.average(v, axis=1, weights=w))
    check_op(lambda v, w: ops.average(v, weights=w), [rand(3, 4), rand(3, 4, low=0.5)],
             reference=lambda v, w: np.average(v, weights=w))
    check_op(lambda v: ops.average(v, axis=0), [rand(3, 4)],
             reference=lambda v: np.average(v, axis=0))


def test_diff_and_trapezoid(check_op):
    check_op(lambda v: ops.diff(v, n=2, axis=0), [rand(5, 3)],
             reference=lambda v: np.diff(v, n=2, axis=0))
    check_op(lambda y: ops.trapezoid(y, dx=0.5), [rand(3, 6)],
             reference=lambda y: np.trapezoid(y, dx=0.5))
    points = np.sort(rand(6)).astype(np.float32)   # constant sample points
    check_op(lambda y: ops.trapezoid(y, x=points), [rand(3, 6)],
             reference=lambda y: np.trapezoid(y, x=points))


WITH_NAN = np.array([[0.5, np.nan, -1.25, 2.0], [np.nan, 0.25, 1.5, -0.75],
                     [1.0, -2.0, 0.75, np.nan]])
NAN_OPS = [
    (ops.nansum, np.nansum), (ops.nanmean, np.nanmean), (ops.nanmax, np.nanmax),
    (ops.nanmin, np.nanmin), (ops.nanprod, np.nanprod), (ops.nanvar, np.nanvar),
    (ops.nanstd, np.nanstd), (ops.nanmedian, np.nanmedian),
]


@pytest.mark.parametrize("op,reference", NAN_OPS, ids=[op.__name__ for op, _ in NAN_OPS])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_nan_reductions(check_op, op, reference, axis):
    check_op(lambda v: op(v, axis=axis), [WITH_NAN],
             reference=lambda v: reference(v, axis=axis))


def test_nan_index_and_cumulative(check_op):
    np.testing.assert_array_equal(ops.nanargmax(WITH_NAN, axis=1).numpy(),
                                  np.nanargmax(WITH_NAN, axis=1))
    np.testing.assert_array_equal(ops.nanargmin(WITH_NAN).numpy(), np.nanargmin(WITH_NAN))
    check_op(lambda v: ops.nancumsum(v, axis=1), [WITH_NAN],
             reference=lambda v: np.nancumsum(v, axis=1))
    check_op(lambda v: ops.nancumprod(v, axis=0), [WITH_NAN],
             reference=lambda v: np.nancumprod(v, axis=0))
    check_op(lambda v: ops.nanquantile(v, 0.3, axis=1), [WITH_NAN],
             reference=lambda v: np.nanquantile(v, 0.3, axis=1))
    check_op(lambda v: ops.nanpercentile(v, 80, axis=0), [WITH_NAN],
             reference=lambda v: np.nanpercentile(v, 80, axis=0))


def test_quantile_of_nan_is_nan(engine):
    assert np.isnan(ops.median(WITH_NAN).numpy())


# ------------------------------------------------------------------ no-gradient reductions
def test_argmax_argmin_default_flattens(engine):
    x = np.array([[1.0, 5.0, 3.0], [7.0, 0.0, 2.0]])
    # keras.ops.argmax(np.array([[1, 5], [7, 2]])) -> 2 (int32; Keras 3.15, axis=None)
    assert int(ops.argmax(np.array([[1, 5], [7, 2]]))) == 2
    assert ops.argmax(x).dtype == np.int32
    assert int(ops.argmax(x)) == 3 and int(ops.argmin(x)) == 4
    np.testing.assert_array_equal(ops.argmax(x, axis=-1).numpy(), [1, 0])
    np.testing.assert_array_equal(ops.argmax(x, axis=0).numpy(), [1, 0, 0])
    np.testing.assert_array_equal(ops.argmin(x, axis=-1).numpy(), [0, 1])
    np.testing.assert_array_equal(ops.argmin(x, axis=0, keepdims=True).numpy(), [[0, 1, 1]])
    assert ops.argmax(lamina.Tensor(x, requires_grad=True)).node is None


def test_any_all_count_nonzero(engine):
    x = np.array([[0.0, 1.0, 2.0], [0.0, 0.0, 3.0]])
    np.testing.assert_array_equal(ops.any(x, axis=1).numpy(), [True, True])
    np.testing.assert_array_equal(ops.all(x, axis=0).numpy(), [False, False, True])
    assert bool(ops.any(x)) and not bool(ops.all(x))
    np.testing.assert_array_equal(ops.all(x > -1, keepdims=True).numpy(), [[True]])
    counts = ops.count_nonzero(x, axis=1)
    assert counts.dtype == np.int32
    np.testing.assert_array_equal(counts.numpy(), [2, 1])
    assert int(ops.count_nonzero(x)) == 3

"""Linear algebra in ``lamina.ops.linalg`` (``backends/ops/linalg.py``): forward against
NumPy/SciPy, finite-difference gradients of inv, solve, solve_triangular, det, slogdet,
cholesky, eigh, qr, svd's singular values and every norm, batched, every engine."""

import numpy as np
import pytest
import scipy.linalg

import lamina
from lamina import ops
from lamina.ops import linalg

RNG = np.random.default_rng(41)


def rand(*shape):
    return np.asarray(RNG.uniform(-1.0, 1.0, size=shape))


def well_conditioned(*shape):
    """Random square matrices with a strong diagonal (invertible, not ill-conditioned)."""
    n = shape[-1]
    return rand(*shape) + 3.0 * np.eye(n)


def spd(*shape):
    m = rand(*shape)
    return m @ np.swapaxes(m, -1, -2) + shape[-1] * np.eye(shape[-1])


def test_namespace():
    for name in ["inv", "solve", "det", "cholesky", "qr", "svd", "eigh", "norm",
                 "solve_triangular", "lu_factor", "eig", "lstsq", "pinv", "matrix_rank",
                 "cholesky_inverse"]:
        assert getattr(linalg, name) is getattr(ops, name)


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)], ids=str)
def test_inv_det_slogdet(check_op, shape):
    check_op(linalg.inv, [well_conditioned(*shape)], reference=np.linalg.inv)
    check_op(linalg.det, [well_conditioned(*shape)], reference=np.linalg.det)
    check_op(lambda a: ops.slogdet(a)[1], [well_conditioned(*shape)],
             reference=lambda a: np.linalg.slogdet(a)[1])
    check_op(ops.logdet, [spd(*shape)], reference=lambda a: np.linalg.slogdet(a)[1])
    sign, _ = ops.slogdet(-np.eye(3))
    assert float(sign) == -1.0


@pytest.mark.parametrize("b_shape", [(3,), (3, 2), (2, 3, 2)], ids=str)
def test_solve(check_op, b_shape):
    a_shape = (2, 3, 3) if len(b_shape) == 3 else (3, 3)
    check_op(linalg.solve, [well_conditioned(*a_shape), rand(*b_shape)],
             reference=lambda a, b: np.linalg.solve(a, b[:, None])[:, 0] if b.ndim == 1
             else np.linalg.solve(a, b))


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("b_shape", [(4,), (4, 2)], ids=str)
def test_solve_triangular(check_op, lower, b_shape):
    check_op(lambda a, b: linalg.solve_triangular(a, b, lower=lower),
             [well_conditioned(4, 4), rand(*b_shape)],
             reference=lambda a, b: scipy.linalg.solve_triangular(a, b, lower=lower))


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3)], ids=str)
def test_cholesky(check_op, upper, shape):
    def reference(a):
        factor = np.linalg.cholesky(a)
        return np.swapaxes(factor, -1, -2) if upper else factor

    check_op(lambda a: linalg.cholesky(a, upper=upper), [spd(*shape)], reference=reference)


def test_cholesky_gradient_through_a_symmetric_parametrization(check_op):
    # A = M M^T + 3I: the usual way a model feeds cholesky; the gradient of M is exact
    shift = 3.0 * np.eye(3, dtype=np.float32)
    check_op(lambda m: linalg.cholesky(ops.matmul(m, ops.transpose(m)) + shift),
             [rand(3, 3)], reference=lambda m: np.linalg.cholesky(m @ m.T + 3 * np.eye(3)))


def test_cholesky_inverse(check_op):
    check_op(linalg.cholesky_inverse, [np.linalg.cholesky(spd(3, 3))],
             reference=lambda f: np.linalg.inv(f @ f.T))
    check_op(lambda f: linalg.cholesky_inverse(f, upper=True), [np.linalg.cholesky(spd(3, 3)).T],
             reference=lambda f: np.linalg.inv(f.T @ f))


def test_eigh(check_op):
    a = spd(2, 3, 3)
    check_op(lambda v: linalg.eigh(v)[0], [a], reference=lambda v: np.linalg.eigh(v)[0])
    # eigenvectors up to sign: compare (and differentiate) the sign-free v * v
    check_op(lambda v: ops.square(linalg.eigh(v)[1]), [a],
             reference=lambda v: np.linalg.eigh(v)[1] ** 2)


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (2, 5, 2)], ids=str)
def test_qr(check_op, shape):
    check_op(linalg.qr, [rand(*shape)], reference=np.linalg.qr)
    q, r = linalg.qr(rand(*shape), mode="complete")
    assert q.shape[-1] == q.shape[-2] == shape[-2]
    x = lamina.Tensor(rand(2, 3), requires_grad=True)
    with pytest.raises(NotImplementedError, match="qr"):
        lamina.grad(ops.sum(linalg.qr(x)[1]), [x])


def test_svd(check_op):
    x = rand(4, 3)
    check_op(lambda v: linalg.svd(v, compute_uv=False), [x],
             reference=lambda v: np.linalg.svd(v, compute_uv=False))
    u, s, vh = linalg.svd(x)
    assert u.shape == (4, 4) and vh.shape == (3, 3)
    np.testing.assert_allclose((u.numpy()[:, :3] * s.numpy()) @ vh.numpy(), x, atol=1e-12)
    u, s, vh = linalg.svd(x, full_matrices=False)
    assert u.shape == (4, 3)
    t = lamina.Tensor(x, requires_grad=True)
    with pytest.raises(NotImplementedError, match="singular vectors"):
        lamina.grad(ops.sum(linalg.svd(t)[0]), [t])


VECTOR_ORDERS = [None, 2, 1, 3, 0.5, np.inf, -np.inf]
MATRIX_ORDERS = [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]


@pytest.mark.parametrize("order", VECTOR_ORDERS, ids=str)
@pytest.mark.parametrize("axis,keepdims", [(None, False), (1, False), (0, True)], ids=str)
def test_vector_norm(check_op, order, axis, keepdims):
    x = rand(3, 4) + np.sign(rand(3, 4)) * 0.1                  # no zeros, no ties
    if axis is None:
        x = x[0]
    check_op(lambda v: linalg.norm(v, ord=order, axis=axis, keepdims=keepdims), [x],
             reference=lambda v: np.linalg.norm(v, ord=order, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("order", MATRIX_ORDERS, ids=str)
@pytest.mark.parametrize("axis,keepdims", [(None, False), ((1, 2), False), ((2, 0), True)],
                         ids=str)
def test_matrix_norm(check_op, order, axis, keepdims):
    x = rand(2, 3, 4) + 0.05 * np.sign(rand(2, 3, 4))             # no zeros, no ties
    if axis is None:
        x = x[0]
    check_op(lambda v: linalg.norm(v, ord=order, axis=axis, keepdims=keepdims), [x],
             reference=lambda v: np.linalg.norm(v, ord=order, axis=axis, keepdims=keepdims))


def test_norm_keras(engine):
    # keras.ops.norm(ones((2, 3))) -> 2.4495; axis=1 -> [1.7321, 1.7321] (Keras 3.15)
    np.testing.assert_allclose(ops.norm(np.ones((2, 3))).numpy(), np.sqrt(6.0))
    np.testing.assert_allclose(ops.norm(np.ones((2, 3)), axis=1).numpy(), [np.sqrt(3.0)] * 2)
    np.testing.assert_allclose(ops.norm(np.ones((2, 3, 2))).numpy(), np.sqrt(12.0))
    with pytest.raises(ValueError, match="axis"):
        ops.norm(np.ones((2, 3, 2)), ord=1)


def test_no_gradient_ops(engine):
    a = well_conditioned(3, 3)
    lu, pivots = linalg.lu_factor(a)
    want_lu, want_pivots = scipy.linalg.lu_factor(a)
    np.testing.assert_allclose(lu.numpy(), want_lu)
    np.testing.assert_array_equal(pivots.numpy(), want_pivots)
    assert pivots.dtype == np.int32
    b = rand(3, 2)
    np.testing.assert_allclose(linalg.lstsq(a, b).numpy(), np.linalg.lstsq(a, b)[0])
    np.testing.assert_allclose(linalg.pinv(rand(3, 2) + 1).numpy().shape, (2, 3))
    assert int(linalg.matrix_rank(np.outer([1.0, 2.0], [3.0, 4.0]))) == 1
    t = lamina.Tensor(a, requires_grad=True)
    with pytest.raises(NotImplementedError, match="pinv"):
        lamina.grad(ops.sum(linalg.pinv(t)), [t])


def test_eig(engine):
    if lamina.backends.get_backend().name != "numpy":
        pytest.skip("eig exists on the NumPy engine only")
    w, v = linalg.eig(np.array([[2.0, 0.0], [0.0, 3.0]]))
    np.testing.assert_allclose(np.sort(w.numpy()), [2.0, 3.0])


def test_square_input_required(engine):
    with pytest.raises(ValueError, match="square"):
        linalg.inv(rand(2, 3))

"""Linear algebra (``lamina.ops.linalg``, also in ``lamina.ops``) on the engine's
``xp.linalg``, batched over leading axes, with Keras' arguments.

Differentiable, each with its backward beside it: ``inv``, ``solve``,
``solve_triangular``, ``det``, ``slogdet``/``logdet``, ``cholesky`` (and
``cholesky_inverse``), ``eigh``, ``qr`` (reduced, rows >= columns), the singular values of
``svd`` and every ``norm``. ``cholesky`` and ``eigh`` read only the lower triangle of their
input (as LAPACK does), so their gradients live on the lower triangle: for a symmetric
parametrization ``A = f(M)`` they give the same gradient of ``M`` as the symmetric
convention. ``eig``, ``lu_factor``, ``lstsq``, ``pinv``, ``matrix_rank`` and svd's
singular vectors have no gradient in lamina (asking for one raises).
"""

import math

from .core import constant, data_of, float_data, record, without_gradient, xp
from .elementwise import abs as absolute, sqrt
from .math import matmul, multiply, power
from .reductions import max as reduce_max, min as reduce_min, sum as reduce_sum
from .shape import expand_dims, moveaxis, swapaxes


def _t(a):
    return xp().swapaxes(a, -1, -2)


def _square(name, a):
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"{name} expects (..., n, n) square matrices, got shape "
                         f"{tuple(a.shape)}")


def _lower_only(symmetric_gradient):
    """The gradient with respect to the lower triangle that LAPACK reads, from the
    symmetric-convention gradient ``G``: ``2 G`` below the diagonal, ``G`` on it."""
    numpy_like = xp()
    eye = numpy_like.eye(symmetric_gradient.shape[-1], dtype=bool)
    return numpy_like.where(eye, symmetric_gradient,
                            2 * numpy_like.tril(symmetric_gradient, -1))


def _symmetric(m):
    return 0.5 * (m + _t(m))


def _solve_matrix(a, b):
    """``solve`` of a batch of matrices against vectors or matrices, NumPy 2 style."""
    if b.ndim == 1:
        return xp().linalg.solve(a, b[:, None])[:, 0]
    return xp().linalg.solve(a, b)


# ------------------------------------------------------------------ inverse and solves
def inv(x):
    """The inverse of square matrices (``(..., n, n)``)."""
    a = float_data(x)
    _square("inv", a)
    out = xp().linalg.inv(a)
    return record(out, (x,), lambda g, needs: (-(_t(out) @ g @ _t(out)),), "inv")


def _solve(a, b, name, lower=None):
    """``solve``, or (``lower`` True/False) ``solve_triangular`` reading one triangle."""
    numpy_like = xp()
    a_data, b_data = float_data(a), float_data(b)
    _square(name, a_data)
    read = (lambda m: m) if lower is None else (numpy_like.tril if lower else numpy_like.triu)
    matrix = read(a_data)
    out = _solve_matrix(matrix, b_data)

    def backward(g, needs):
        grad_b = _solve_matrix(_t(matrix), g)
        grad_a = None
        if needs[0]:
            grad_a = read((-grad_b[..., :, None] * out[..., None, :]) if b_data.ndim == 1
                          else -(grad_b @ _t(out)))
        return grad_a, (grad_b if needs[1] else None)

    return record(out, (a, b), backward, name)


def solve(a, b):
    """``x`` with ``a @ x = b`` (``b`` a vector ``(n,)`` or matrices ``(..., n, k)``)."""
    return _solve(a, b, "solve")


def solve_triangular(a, b, lower=False):
    """``solve`` for triangular ``a`` (only its ``lower`` or upper triangle is read)."""
    return _solve(a, b, "solve_triangular", lower=lower)


# ------------------------------------------------------------------ determinants
def det(x):
    """The determinant of square matrices."""
    a = float_data(x)
    _square("det", a)
    out = xp().linalg.det(a)

    def backward(g, needs):
        return ((g * out)[..., None, None] * _t(xp().linalg.inv(a)),)

    return record(out, (x,), backward, "det")


def slogdet(x):
    """``(sign, log|det|)`` of square matrices; the log is differentiable."""
    a = float_data(x)
    _square("slogdet", a)
    sign, log_abs = xp().linalg.slogdet(a)

    def backward(g, needs):
        return (g[..., None, None] * _t(xp().linalg.inv(a)),)

    return constant(sign, "slogdet"), record(log_abs, (x,), backward, "slogdet")


def logdet(x):
    """``log(det(x))`` of matrices with positive determinant (as ``keras.ops.logdet``)."""
    return slogdet(x)[1]


# ------------------------------------------------------------------ factorizations
def cholesky(x, upper=False):
    """The Cholesky factor ``L`` (lower, ``x = L L^T``) of symmetric positive definite
    matrices, or ``U = L^T`` when ``upper``. Reads the lower triangle of ``x``."""
    numpy_like = xp()
    a = float_data(x)
    _square("cholesky", a)
    factor = numpy_like.linalg.cholesky(a)

    def backward(g, needs):
        if upper:
            g = _t(g)
        phi = numpy_like.tril(_t(factor) @ g)
        phi = phi - 0.5 * numpy_like.tril(numpy_like.triu(phi))
        inverse = numpy_like.linalg.inv(factor)
        return (_lower_only(_symmetric(_t(inverse) @ phi @ inverse)),)

    return record(_t(factor).copy() if upper else factor, (x,), backward, "cholesky")


def cholesky_inverse(x, upper=False):
    """The inverse of ``L L^T`` from its Cholesky factor ``x`` (``U^T U`` when ``upper``)."""
    factor = swapaxes(x, -1, -2) if upper else x
    return inv(matmul(factor, swapaxes(factor, -1, -2)))


def eigh(x):
    """Eigenvalues (ascending) and eigenvectors (columns) of symmetric matrices, as
    ``(w, v)``; reads the lower triangle. Both are differentiable (distinct
    eigenvalues)."""
    numpy_like = xp()
    a = float_data(x)
    _square("eigh", a)
    w, v = numpy_like.linalg.eigh(a)
    gaps = w[..., None, :] - w[..., :, None]
    eye = numpy_like.eye(w.shape[-1], dtype=bool)
    inverse_gaps = numpy_like.where(eye, 0, 1 / numpy_like.where(eye, 1, gaps))

    def from_inner(inner):
        return (_lower_only(_symmetric(v @ inner @ _t(v))),)

    values = record(w, (x,), lambda g, needs: from_inner(
        g[..., :, None] * eye), "eigh")
    vectors = record(v, (x,), lambda g, needs: from_inner(
        inverse_gaps * (_t(v) @ g)), "eigh")
    return values, vectors


def eig(x):
    """Eigenvalues and eigenvectors of general square matrices (complex in general; the
    NumPy engine only). No gradient."""
    a = float_data(x)
    _square("eig", a)
    if not hasattr(xp().linalg, "eig"):
        raise NotImplementedError(f"eig is not available on the {xp().__name__} engine")
    w, v = xp().linalg.eig(a)
    return (record(w, (x,), without_gradient("eig"), "eig"),
            record(v, (x,), without_gradient("eig"), "eig"))


def qr(x, mode="reduced"):
    """QR decomposition ``x = Q R`` (``mode`` "reduced" or "complete"); differentiable in
    reduced mode for matrices with at least as many rows as columns."""
    if mode not in ("reduced", "complete"):
        raise ValueError(f"qr: mode must be 'reduced' or 'complete', got {mode!r}")
    numpy_like = xp()
    a = float_data(x)
    q, r = numpy_like.linalg.qr(a, mode=mode)
    differentiable = mode == "reduced" and a.shape[-2] >= a.shape[-1]

    def backward_pair(grad_q, grad_r):
        # gA = (gQ + Q copyltu(M)) R^-T with M = R gR^T - gQ^T Q (square-or-tall case)
        m = r @ _t(grad_r) - _t(grad_q) @ q
        lower = numpy_like.tril(m, -1)
        copyltu = lower + _t(lower) + m * numpy_like.eye(m.shape[-1], dtype=m.dtype)
        rhs = grad_q + q @ copyltu
        return (_t(numpy_like.linalg.solve(r, _t(rhs))),)

    def backward_q(g, needs):
        return backward_pair(g, numpy_like.zeros_like(r))

    def backward_r(g, needs):
        return backward_pair(numpy_like.zeros_like(q), g)

    if not differentiable:
        backward_q = backward_r = without_gradient(f"qr(mode={mode!r}) of a wide matrix")
    return record(q, (x,), backward_q, "qr"), record(r, (x,), backward_r, "qr")


def svd(x, full_matrices=True, compute_uv=True):
    """Singular value decomposition ``x = u diag(s) v``: ``(u, s, v)``, or ``s`` alone
    when not ``compute_uv``. The singular values are differentiable; ``u`` and ``v`` are
    not in lamina."""
    numpy_like = xp()
    a = float_data(x)
    u, s, vh = numpy_like.linalg.svd(a, full_matrices=False)

    def backward_s(g, needs):
        return ((u * g[..., None, :]) @ vh,)

    values = record(s, (x,), backward_s, "svd")
    if not compute_uv:
        return values
    if full_matrices:
        u, _, vh = numpy_like.linalg.svd(a, full_matrices=True)
    return (record(u, (x,), without_gradient("svd (singular vectors)"), "svd"), values,
            record(vh, (x,), without_gradient("svd (singular vectors)"), "svd"))


def lu_factor(x):
    """LU factorization with partial pivoting, as SciPy's: ``(lu, pivots)`` with ``L``
    (unit diagonal) and ``U`` packed in ``lu`` and int32 row swaps. No gradient."""
    a = float_data(x)
    _square("lu_factor", a)
    if xp().__name__ == "numpy":
        from scipy.linalg import lu_factor as factor
    else:
        from cupyx.scipy.linalg import lu_factor as factor
    if a.ndim != 2:
        raise ValueError(f"lu_factor expects one (n, n) matrix, got shape {tuple(a.shape)}")
    lu, pivots = factor(a)
    return (record(lu, (x,), without_gradient("lu_factor"), "lu_factor"),
            constant(pivots.astype("int32"), "lu_factor"))


def lstsq(a, b, rcond=None):
    """The least-squares solution of ``a @ x = b``. No gradient."""
    a_data, b_data = float_data(a), float_data(b)
    out = xp().linalg.lstsq(a_data, b_data, rcond=rcond)[0]
    return record(out, (a, b), without_gradient("lstsq"), "lstsq")


def pinv(x, rcond=None):
    """The Moore-Penrose pseudo-inverse. No gradient."""
    a = float_data(x)
    out = xp().linalg.pinv(a) if rcond is None else xp().linalg.pinv(a, rcond)
    return record(out, (x,), without_gradient("pinv"), "pinv")


def matrix_rank(x, tol=None):
    """The numerical rank (int32) of matrices."""
    return constant(xp().asarray(xp().linalg.matrix_rank(float_data(x), tol=tol))
                    .astype("int32"), "matrix_rank")


# ------------------------------------------------------------------ norms
def _vector_norm(x, order, axis, keepdims):
    if order is None or order == 2:
        return sqrt(reduce_sum(multiply(x, x), axis=axis, keepdims=keepdims))
    if order == math.inf:
        return reduce_max(absolute(x), axis=axis, keepdims=keepdims)
    if order == -math.inf:
        return reduce_min(absolute(x), axis=axis, keepdims=keepdims)
    if order == 0:
        a = data_of(x)
        return constant((a != 0).sum(axis=axis, keepdims=keepdims).astype(a.dtype), "norm")
    return power(reduce_sum(power(absolute(x), order), axis=axis, keepdims=keepdims),
                 1.0 / order)


def _matrix_norm(x, order, axes, keepdims):
    rows, cols = axes
    if order in (None, "fro"):
        return sqrt(reduce_sum(multiply(x, x), axis=axes, keepdims=keepdims))
    if order in ("nuc", 2, -2):
        moved = moveaxis(x, (rows, cols), (-2, -1))
        singular = svd(moved, compute_uv=False)
        out = reduce_sum(singular, axis=-1) if order == "nuc" else (
            reduce_max(singular, axis=-1) if order == 2 else reduce_min(singular, axis=-1))
        if keepdims:
            for axis in sorted((rows, cols)):
                out = expand_dims(out, axis)
        return out
    if order in (1, -1, math.inf, -math.inf):
        summed_axis, extreme_axis = (rows, cols) if order in (1, -1) else (cols, rows)
        sums = reduce_sum(absolute(x), axis=summed_axis, keepdims=True)
        pick = reduce_max if order in (1, math.inf) else reduce_min
        out = pick(sums, axis=extreme_axis, keepdims=True)
        return out if keepdims else reduce_sum(out, axis=(rows, cols))
    raise ValueError(f"norm: invalid ord {order!r} for a matrix norm")


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002  (Keras' name)
    """Vector or matrix norm, as ``numpy.linalg.norm``: ``axis`` an int (vector norm of
    order ``ord``: None/2, inf, -inf, 0, or any p), a pair (matrix norm: None/"fro",
    "nuc", 1, -1, 2, -2, inf, -inf), or None (the whole of a 1-d/2-d ``x``; the 2-norm of
    the flattened ``x`` when ``ord`` is None)."""
    a = float_data(x)
    source = x if a is data_of(x) else a
    if axis is None:
        if ord is None:
            flat_axes = tuple(range(a.ndim))
            return sqrt(reduce_sum(multiply(source, source), axis=flat_axes,
                                   keepdims=keepdims))
        if a.ndim == 1:
            axis = 0
        elif a.ndim == 2:
            axis = (0, 1)
        else:
            raise ValueError(f"norm: give axis for ord={ord!r} on a {a.ndim}-d input")
    if isinstance(axis, (tuple, list)):
        if len(axis) == 1:
            return _vector_norm(source, ord, tuple(axis), keepdims)
        if len(axis) != 2:
            raise ValueError(f"norm: axis must be an int or a pair, got {axis!r}")
        return _matrix_norm(source, ord, tuple(ax % a.ndim for ax in axis), keepdims)
    if isinstance(ord, str):
        raise ValueError(f"norm: ord={ord!r} needs a matrix (axis pair)")
    return _vector_norm(source, ord, axis, keepdims)

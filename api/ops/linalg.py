"""``lamina.ops.linalg``: linear algebra (inverse, solves, determinants, factorizations,
norms), as ``keras.ops.linalg``."""

from lamina.backends.ops.linalg import (cholesky, cholesky_inverse, det, eig,  # noqa: F401
                                        eigh, inv, lstsq, lu_factor, matrix_rank, norm,
                                        pinv, qr, solve, solve_triangular, svd)

__all__ = [
    "cholesky", "cholesky_inverse", "det", "eig", "eigh", "inv", "lstsq", "lu_factor",
    "matrix_rank", "norm", "pinv", "qr", "solve", "solve_triangular", "svd",
]

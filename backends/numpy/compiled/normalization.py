"""The NumPy engine's compiled layer normalization: the forward in one loop per row and
the backward in one loop per row (the parameter gradients accumulated on the way).

As array calls the forward is about eight passes over the activations (mean, centring,
square, variance, scaling, gamma, beta, the copies) and the backward about ten; each took
~0.6 ms per call on a (2048, 128) batch of a small Transformer. Here a row is read into
cache once per kernel.

The arithmetic is the array-call path's
(:meth:`lamina.backends.array_engine.ArrayEngine.layer_norm_forward` and ``..._backward``),
in the arrays' dtype: ``mean``, ``variance = mean((x - mean)^2)``,
``inv_std = 1 / sqrt(variance + epsilon)``, ``normalized = (x - mean) inv_std``,
``y = normalized gamma + beta``; backward, with ``gn = g gamma``:
``grad_x = (gn - mean(gn) - normalized mean(gn normalized)) inv_std``,
``grad_gamma = sum(g normalized)``, ``grad_beta = sum(g)`` over the rows. The NumPy engine
imports this module on first use through :func:`lamina.backends.numpy.engine.compiled`.
Arrays are C-contiguous, 2-D (rows, features) or 1-D (features,) / (rows,), of one float
dtype; without gamma or beta the kernels get a stand-in array and a False flag.
"""

import numba
import numpy as np

_KERNEL_OPTIONS = dict(fastmath={"contract", "arcp", "afn", "reassoc", "nsz"}, error_model="numpy",
                       boundscheck=False, nogil=True, cache=True)


@numba.njit(**_KERNEL_OPTIONS)
def layer_norm_forward(x, gamma, beta, epsilon, has_gamma, has_beta, y, normalized,
                       inv_std):
    """Normalize every row of ``x`` into ``normalized`` and ``y``; ``inv_std`` (rows,)."""
    width = x.shape[1]
    scale = x.dtype.type(1.0) / width
    for r in range(x.shape[0]):
        row, out, norm = x[r], y[r], normalized[r]
        total = x.dtype.type(0.0)
        for j in range(width):
            total += row[j]
        mean = total * scale
        square = x.dtype.type(0.0)
        for j in range(width):
            centered = row[j] - mean
            norm[j] = centered
            square += centered * centered
        inverse = x.dtype.type(1.0) / np.sqrt(square * scale + epsilon)
        inv_std[r] = inverse
        for j in range(width):
            value = norm[j] * inverse
            norm[j] = value
            if has_gamma:
                value *= gamma[j]
            if has_beta:
                value += beta[j]
            out[j] = value


@numba.njit(**_KERNEL_OPTIONS)
def layer_norm_backward(grad, normalized, gamma, inv_std, has_gamma, grad_x, grad_gamma,
                        grad_beta):
    """Write ``grad_x`` (rows, features); accumulate into ``grad_gamma`` and
    ``grad_beta`` (features,), which the caller zeroes."""
    width = grad.shape[1]
    scale = grad.dtype.type(1.0) / width
    for r in range(grad.shape[0]):
        g, norm, out = grad[r], normalized[r], grad_x[r]
        total = grad.dtype.type(0.0)
        dot = grad.dtype.type(0.0)
        for j in range(width):
            gn = g[j] * gamma[j] if has_gamma else g[j]
            out[j] = gn
            total += gn
            dot += gn * norm[j]
            grad_gamma[j] += g[j] * norm[j]
            grad_beta[j] += g[j]
        mean, dot, inverse = total * scale, dot * scale, inv_std[r]
        for j in range(width):
            out[j] = (out[j] - mean - norm[j] * dot) * inverse

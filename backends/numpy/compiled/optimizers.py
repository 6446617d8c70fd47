"""The NumPy engine's compiled Adam step: every variable updated in ONE pass over memory.

The Adam optimizer's array-call rule (``lamina.optimizers.Adam``) makes about a dozen
passes over each variable and its two slots; for W1's 670,000 parameters that
was a third of the training step. Numba compiles the whole update into one loop that reads
each element of the variable, the gradient and the slots once and writes them once.

The arithmetic is the array-call path's, in the arrays' dtype (the scalars are cast to it
first): ``m = b1 (m - g) + g``, ``v = b2 (v - g^2) + g^2``, ``v_hat = max(v_hat, v)`` for
AMSGrad, ``variable -= alpha m / (sqrt(v) + eps)`` after AdamW's decoupled decay. The NumPy
engine imports this module on first use through :func:`lamina.backends.numpy.engine.compiled`
and hands :func:`adam_update` to the optimizer from ``NumpyBackend.optimizer_kernel``.
"""

import numba
import numpy as np

_KERNEL_OPTIONS = dict(fastmath={"contract", "arcp", "nsz"}, error_model="numpy",
                       boundscheck=False, nogil=True, cache=True)


def adam_update(variable, gradient, m, v, alpha, beta_1, beta_2, epsilon, keep, v_hat):
    """One Adam step on C-contiguous arrays of one float dtype, in place. ``alpha`` is the
    bias-corrected step size, ``keep = 1 - learning_rate * weight_decay`` (1 without
    decay), ``v_hat`` the AMSGrad slot or None."""
    scalar = variable.dtype.type
    # Without AMSGrad the kernel's v_hat argument is a stand-in it never touches.
    _adam(variable.reshape(-1), gradient.reshape(-1), m.reshape(-1), v.reshape(-1),
          scalar(alpha), scalar(beta_1), scalar(beta_2), scalar(epsilon), scalar(keep),
          v.reshape(-1) if v_hat is None else v_hat.reshape(-1), v_hat is not None)


@numba.njit(**_KERNEL_OPTIONS)
def _adam(variable, gradient, m, v, alpha, beta_1, beta_2, epsilon, keep, v_hat, amsgrad):
    for i in range(variable.shape[0]):
        g = gradient[i]
        square = g * g
        m_i = beta_1 * (m[i] - g) + g
        v_i = beta_2 * (v[i] - square) + square
        m[i], v[i] = m_i, v_i
        if amsgrad:
            v_i = max(v_hat[i], v_i)
            v_hat[i] = v_i
        variable[i] = variable[i] * keep - alpha * m_i / (np.sqrt(v_i) + epsilon)

"""NumPy transcriptions of Keras' optimizer update formulas, and the three-step check every
optimizer test runs against them (the same start weights ``W0`` and gradients ``GRADS``)."""

import numpy as np

import lamina


RNG = np.random.default_rng(7)
W0 = np.array([[0.5, -1.0, 2.0], [1.5, 0.0, -0.3]])


GRADS = [RNG.normal(size=W0.shape) for _ in range(3)]


def ref_sgd(lr=0.01, momentum=0.0, nesterov=False, weight_decay=None):
    """W0 after the GRADS steps of Keras' SGD (momentum, Nesterov, weight decay) formula."""
    w, v = W0.copy(), np.zeros_like(W0)
    for g in GRADS:
        if weight_decay:
            w = w - w * weight_decay * lr
        if momentum:
            v = momentum * v - lr * g
            w = w + (momentum * v - lr * g if nesterov else v)
        else:
            w = w - lr * g
    return w


def ref_adam(lr=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, amsgrad=False,
             weight_decay=None):
    """W0 after the GRADS steps of Keras' Adam (AMSGrad, weight decay as AdamW) formula."""
    w, m, v, v_hat = W0.copy(), np.zeros_like(W0), np.zeros_like(W0), np.zeros_like(W0)
    for step, g in enumerate(GRADS, start=1):
        if weight_decay:
            w = w - w * weight_decay * lr
        alpha = lr * np.sqrt(1 - beta_2 ** step) / (1 - beta_1 ** step)
        m = m + (g - m) * (1 - beta_1)
        v = v + (g * g - v) * (1 - beta_2)
        if amsgrad:
            v_hat = np.maximum(v_hat, v)
            w = w - m * alpha / (np.sqrt(v_hat) + epsilon)
        else:
            w = w - m * alpha / (np.sqrt(v) + epsilon)
    return w


def ref_rmsprop(lr=0.001, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False):
    """W0 after the GRADS steps of Keras' RMSprop (momentum, centred) formula."""
    w, vel, mom, avg = W0.copy(), np.zeros_like(W0), np.zeros_like(W0), np.zeros_like(W0)
    for g in GRADS:
        vel = rho * vel + (1 - rho) * g * g
        if centered:
            avg = rho * avg + (1 - rho) * g
            increment = lr * g / np.sqrt(vel - avg ** 2 + epsilon)
        else:
            increment = lr * g / np.sqrt(vel + epsilon)
        if momentum > 0:
            mom = momentum * mom + increment
            w = w - mom
        else:
            w = w - increment
    return w


def ref_adagrad(lr=0.001, initial_accumulator_value=0.1, epsilon=1e-7):
    """W0 after the GRADS steps of Keras' Adagrad formula."""
    w, acc = W0.copy(), np.full_like(W0, initial_accumulator_value)
    for g in GRADS:
        acc = acc + g * g
        w = w - lr * g / np.sqrt(acc + epsilon)
    return w


def run(optimizer, dtype="float32", grads=GRADS, as_tensor=True):
    """A variable holding W0 after ``optimizer`` applied ``grads`` to it."""
    variable = lamina.Variable(W0.astype(dtype), name="kernel")
    for g in grads:
        g = g.astype(dtype)
        optimizer.apply([lamina.Tensor(g) if as_tensor else g], [variable])
    return variable


def check_three_steps(optimizer, expected):
    """``optimizer`` rebuilt from its config matches ``expected`` (a ``ref_*`` result) after
    three steps, in float32 (Tensor gradients) and in float64 (array gradients)."""
    config = optimizer.get_config()
    single = run(type(optimizer).from_config(config), "float32")
    assert single.dtype == np.float32
    np.testing.assert_allclose(single.numpy(), expected, rtol=2e-5, atol=1e-6)
    double = run(type(optimizer).from_config(config), "float64", as_tensor=False)
    np.testing.assert_allclose(double.numpy(), expected, rtol=1e-12, atol=1e-12)

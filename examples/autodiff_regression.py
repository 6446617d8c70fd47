"""Fit a cubic polynomial with ``lamina.grad`` and plain gradient descent.

The data are ``y = 0.5 - 1.2 x + 0.8 x^2 + 2.0 x^3 + noise`` for ``x`` in [-1, 1]. The
model is ``features(x) @ coefficients`` with features ``[1, x, x^2, x^3]``; every step
computes the mean squared error with ``lamina.ops``, asks ``lamina.grad`` for its
gradient and moves the coefficients against it.

Run:
    python examples/autodiff_regression.py

Exits with status 1 if the fit misses (final loss above the noise level allows, or a
coefficient off by more than 0.1).
"""

import sys

import numpy as np

import lamina
from lamina import ops

TRUE_COEFFICIENTS = np.array([0.5, -1.2, 0.8, 2.0], dtype=np.float32)
NOISE = 0.05
STEPS = 1000
LEARNING_RATE = 0.5


def make_data(n=256, seed=0):
    """Features ``[1, x, x^2, x^3]`` of ``n`` points and noisy targets."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1.0, 1.0, size=n).astype(np.float32)
    features = np.stack([x ** p for p in range(len(TRUE_COEFFICIENTS))], axis=1)
    noise = rng.normal(0.0, NOISE, size=n).astype(np.float32)
    return features, features @ TRUE_COEFFICIENTS + noise


def fit(features, targets):
    """Gradient descent on the mean squared error; returns the coefficients and the loss."""
    coefficients = lamina.Variable(np.zeros(features.shape[1], dtype=np.float32),
                                   name="coefficients")
    for step in range(STEPS + 1):
        residual = features @ coefficients - targets
        loss = ops.mean(ops.square(residual))
        if step % 100 == 0:
            print(f"step {step:5d}  loss {float(loss):.6f}")
        if step < STEPS:
            gradient = lamina.grad(loss, [coefficients])[0]
            coefficients.assign(coefficients.numpy() - LEARNING_RATE * gradient.numpy())
    return coefficients.numpy(), float(loss)


def main():
    features, targets = make_data()
    fitted, final_loss = fit(features, targets)
    print("coefficient   true   fitted")
    for power, (true, got) in enumerate(zip(TRUE_COEFFICIENTS, fitted)):
        print(f"x^{power}        {true:6.2f}  {got:7.3f}")
    error = np.abs(fitted - TRUE_COEFFICIENTS).max()
    if final_loss > 2 * NOISE ** 2 or error > 0.1:
        print(f"FAILED: final loss {final_loss:.6f}, largest coefficient error {error:.3f}")
        return 1
    print(f"fit OK: final loss {final_loss:.6f} (noise variance {NOISE ** 2:.6f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

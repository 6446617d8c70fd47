"""Per-op overhead of lamina's engine on a tiny array, against the same arithmetic in NumPy.

A chain of 20 elementwise ops on an 8x8 float32 array, then a sum, is run

* in plain NumPy (forward only, and forward plus a hand-written backward),
* through ``lamina.ops`` without recording (``no_grad``), recording, and recording plus
  ``lamina.grad``.

With arrays this small the arithmetic costs almost nothing, so the difference per op is the
engine's Python overhead: wrapping, recording a node, and walking it backward.

Run:
    python benchmarks/op_overhead.py
"""

import timeit

import numpy as np

import lamina
from lamina import ops

SIZE = 8
REPEATS = 5
STEPS = ("scale", "shift", "tanh", "weight", "offset") * 4  # 20 elementwise ops


def lamina_chain(x, w):
    """The op chain through ``lamina.ops``; returns the scalar loss Tensor."""
    y = x
    for step in STEPS:
        if step == "scale":
            y = y * 0.9
        elif step == "shift":
            y = y + 0.1
        elif step == "tanh":
            y = ops.tanh(y)
        elif step == "weight":
            y = y * w
        else:
            y = y - 0.05
    return ops.sum(y)


def numpy_forward(x, w):
    """The same chain in NumPy; returns the loss and what the backward needs."""
    y = x
    saved = []
    for step in STEPS:
        if step == "scale":
            y = y * np.float32(0.9)
        elif step == "shift":
            y = y + np.float32(0.1)
        elif step == "tanh":
            y = np.tanh(y)
            saved.append(y)
        elif step == "weight":
            y = y * w
        else:
            y = y - np.float32(0.05)
    return y.sum(), saved


def numpy_forward_backward(x, w):
    """Forward, then the hand-written backward; returns the gradient w.r.t. ``x``."""
    _, saved = numpy_forward(x, w)
    g = np.ones_like(x)
    tanh_outputs = iter(reversed(saved))
    for step in reversed(STEPS):
        if step == "scale":
            g = g * np.float32(0.9)
        elif step == "tanh":
            out = next(tanh_outputs)
            g = g * (1 - out * out)
        elif step == "weight":
            g = g * w
    return g


def best_microseconds(fn, number):
    """Best-of-``REPEATS`` time of one ``fn()`` call, in microseconds."""
    return min(timeit.repeat(fn, number=number, repeat=REPEATS)) / number * 1e6


def main():
    rng = np.random.default_rng(0)
    x_values = rng.standard_normal((SIZE, SIZE)).astype(np.float32)
    w_values = rng.uniform(0.5, 1.5, (SIZE, SIZE)).astype(np.float32)
    x = lamina.Variable(x_values, name="x")
    w = lamina.Variable(w_values, name="w")

    def lamina_no_grad():
        with lamina.no_grad():
            lamina_chain(x, w)

    def lamina_grad():
        return lamina.grad(lamina_chain(x, w), [x])

    expected = numpy_forward_backward(x_values, w_values)
    np.testing.assert_allclose(lamina_grad()[0].numpy(), expected, rtol=1e-5)

    number = 2000
    op_count = len(STEPS) + 1  # the chain plus the final sum
    numpy_forward_us = best_microseconds(lambda: numpy_forward(x_values, w_values), number)
    numpy_both_us = best_microseconds(lambda: numpy_forward_backward(x_values, w_values), number)
    rows = [
        ("numpy forward", numpy_forward_us, None),
        ("lamina forward, no_grad", best_microseconds(lamina_no_grad, number),
         numpy_forward_us),
        ("lamina forward, recording", best_microseconds(lambda: lamina_chain(x, w), number),
         numpy_forward_us),
        ("numpy forward + backward", numpy_both_us, None),
        ("lamina forward + grad", best_microseconds(lamina_grad, number), numpy_both_us),
    ]
    print(f"{op_count} ops on a {SIZE}x{SIZE} float32 array "
          f"(best of {REPEATS} x {number} runs, numpy {np.__version__})")
    print(f"{'workload':<28}{'us/chain':>10}{'us/op':>9}{'overhead us/op':>16}")
    for name, total, baseline in rows:
        overhead = "-" if baseline is None else f"{(total - baseline) / op_count:.2f}"
        print(f"{name:<28}{total:>10.1f}{total / op_count:>9.2f}{overhead:>16}")


if __name__ == "__main__":
    main()

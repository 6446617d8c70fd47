"""The practical floor for a NumPy engine: an MLP training loop written by hand in NumPy.

No framework: gather the batch, GEMMs with in-place bias and ReLU, a stable log-softmax
cross-entropy (or MSE), backward GEMMs on transposed views, in-place Adam with scratch
buffers, and ``float(loss)`` once per step (BENCHMARKS.md, "The NumPy floor").
"""

import numpy as np


def _glorot(rng, fan_in, fan_out):
    limit = np.sqrt(6.0 / (fan_in + fan_out))
    return rng.uniform(-limit, limit, size=(fan_in, fan_out)).astype(np.float32)


class _Adam:
    def __init__(self, params, lr=1e-3, beta_1=0.9, beta_2=0.999, epsilon=1e-7):
        self.params = params
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.scratch = [np.empty_like(p) for p in params]
        self.lr, self.b1, self.b2, self.eps = lr, beta_1, beta_2, epsilon
        self.step = 0

    def update(self, grads):
        self.step += 1
        alpha = self.lr * np.sqrt(1 - self.b2 ** self.step) / (1 - self.b1 ** self.step)
        for p, g, m, v, s in zip(self.params, grads, self.m, self.v, self.scratch):
            m -= g
            m *= self.b1
            m += g
            np.multiply(g, g, out=s)
            v -= s
            v *= self.b2
            v += s
            np.sqrt(v, out=s)
            s += self.eps
            np.divide(m, s, out=s)
            s *= alpha
            p -= s


def mlp_floor(x, y, sizes, batch, regression=False, predict_only=False):
    """Return ``run_epoch()`` training (or, with ``predict_only``, predicting) an MLP of
    layer ``sizes`` with ReLU hidden layers; it returns the epoch's mean loss."""
    rng = np.random.default_rng(0)
    weights = [_glorot(rng, a, b) for a, b in zip(sizes[:-1], sizes[1:])]
    biases = [np.zeros(b, np.float32) for b in sizes[1:]]
    params = [p for pair in zip(weights, biases) for p in pair]
    adam = _Adam(params)
    n = len(x)
    labels = y if regression else y.astype(np.int64)

    def forward(batch_x):
        activations = [batch_x]
        out = batch_x
        for index, (w, b) in enumerate(zip(weights, biases)):
            out = out @ w
            out += b
            if index < len(weights) - 1:
                np.maximum(out, 0, out=out)
            activations.append(out)
        return activations

    if predict_only:
        def run_epoch():
            outs = [forward(x[i:i + batch])[-1] for i in range(0, n, batch)]
            return float(np.mean(np.concatenate(outs)))
        return run_epoch

    def step(batch_x, batch_y):
        acts = forward(batch_x)
        out = acts[-1]
        m = len(batch_x)
        if regression:
            diff = out - batch_y
            loss = float(np.mean(diff * diff))
            grad = diff * np.float32(2.0 / m)
        else:
            shifted = out - out.max(axis=1, keepdims=True)
            exp = np.exp(shifted)
            totals = exp.sum(axis=1, keepdims=True)
            rows = np.arange(m)
            loss = float(np.mean(np.log(totals[:, 0]) - shifted[rows, batch_y]))
            exp /= totals
            exp[rows, batch_y] -= 1.0
            exp *= np.float32(1.0 / m)
            grad = exp
        grads = [None] * len(params)
        for index in range(len(weights) - 1, -1, -1):
            grads[2 * index] = acts[index].T @ grad
            grads[2 * index + 1] = grad.sum(axis=0)
            if index:
                grad = grad @ weights[index].T
                grad *= acts[index] > 0
        adam.update(grads)
        return loss

    def run_epoch():
        order = rng.permutation(n)
        total = 0.0
        for start in range(0, n, batch):
            idx = order[start:start + batch]
            total += step(x[idx], labels[idx]) * len(idx)
        return total / n

    return run_epoch

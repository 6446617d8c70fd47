"""Plain-NumPy reference loops of the recurrent ops (float64, Keras' conventions), shared by
the op tests (``tests/backends/ops/test_recurrent.py``) and the layer tests
(``tests/layers/rnn/``).

A ``*_step`` function returns ``step(x_t, *states) -> new states`` for fixed weights;
:func:`reference_run` loops a step over a sequence with Keras' masking and
``go_backwards``. Gate column blocks are ``[i | f | c | o]`` (LSTM) and ``[z | r | h]``
(GRU). A recurrent-dropout mask scales the state the recurrent kernel sees (in the GRU, as
in Keras 3, the state the whole cell sees).
"""

import numpy as np


def sigmoid(x):
    """The logistic function."""
    return 1.0 / (1.0 + np.exp(-x))


ACTIVATIONS = {
    "tanh": np.tanh,
    "sigmoid": sigmoid,
    "relu": lambda a: np.maximum(a, 0.0),
    "hard_sigmoid": lambda a: np.clip(a / 6.0 + 0.5, 0.0, 1.0),
    "linear": lambda a: a,
}


def reference_run(step, x, states, mask=None, go_backwards=False):
    """Keras' loop: masked steps carry the states (the output repeats the previous h).

    Returns ``(outputs (B, T, u) in processing order, final states)``."""
    outputs = []
    steps = range(x.shape[1] - 1, -1, -1) if go_backwards else range(x.shape[1])
    for t in steps:
        new = step(x[:, t], *states)
        if mask is not None:
            keep = mask[:, t:t + 1]
            new = [np.where(keep, n, s) for n, s in zip(new, states)]
        states = new
        outputs.append(states[0])
    return np.stack(outputs, axis=1), states


def _seen(h, dropout):
    """The state as the recurrent kernel sees it."""
    return h if dropout is None else h * dropout


def lstm_step(kernel, recurrent, bias=None, activation="tanh",
              recurrent_activation="sigmoid", dropout=None):
    """One LSTM step ``(x, h, c) -> [h', c']``."""
    u = recurrent.shape[0]
    act, gate = ACTIVATIONS[activation], ACTIVATIONS[recurrent_activation]
    bias = np.zeros(4 * u) if bias is None else bias

    def step(x, h, c):
        z = x @ kernel + _seen(h, dropout) @ recurrent + bias
        i, f = gate(z[:, :u]), gate(z[:, u:2 * u])
        g, o = act(z[:, 2 * u:3 * u]), gate(z[:, 3 * u:])
        c = f * c + i * g
        return [o * act(c), c]

    return step


def gru_step(kernel, recurrent, bias=None, reset_after=True, activation="tanh",
             recurrent_activation="sigmoid", dropout=None):
    """One GRU step ``(x, h) -> [h']`` (bias (2, 3u) with ``reset_after``, else (3u,))."""
    u = recurrent.shape[0]
    act, gate = ACTIVATIONS[activation], ACTIVATIONS[recurrent_activation]
    if bias is None:
        bias = np.zeros((2, 3 * u) if reset_after else 3 * u)

    def step(x, h):
        h = _seen(h, dropout)
        if reset_after:
            mx, mh = x @ kernel + bias[0], h @ recurrent + bias[1]
            z = gate(mx[:, :u] + mh[:, :u])
            r = gate(mx[:, u:2 * u] + mh[:, u:2 * u])
            hh = act(mx[:, 2 * u:] + r * mh[:, 2 * u:])
        else:
            mx = x @ kernel + bias
            z = gate(mx[:, :u] + h @ recurrent[:, :u])
            r = gate(mx[:, u:2 * u] + h @ recurrent[:, u:2 * u])
            hh = act(mx[:, 2 * u:] + (r * h) @ recurrent[:, 2 * u:])
        return [z * h + (1 - z) * hh]

    return step


def simple_step(kernel, recurrent, bias=None, activation="tanh", dropout=None):
    """One simple-RNN step ``(x, h) -> [act(x W + h U + b)]``."""
    act = ACTIVATIONS[activation]
    bias = np.zeros(recurrent.shape[0]) if bias is None else bias
    return lambda x, h: [act(x @ kernel + _seen(h, dropout) @ recurrent + bias)]

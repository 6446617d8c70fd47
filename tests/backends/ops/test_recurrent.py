"""The fused recurrent ops of ``lamina.ops`` (``backends/ops/recurrent.py``): ``lstm``,
``gru`` (``reset_after`` on and off) and ``simple_rnn`` join the op harness on every engine.

Each case checks the float64 forward (sequence and final states) against the plain-NumPy
loops of :mod:`harness.recurrent`, the gradients of every differentiable input (inputs,
kernels, bias, initial states) against finite differences, and float32 in -> float32 out;
the cases cover no bias, initial states, masking, ``go_backwards``, a recurrent-dropout mask
and every supported activation. Also: empty sequences, weights that do not fit, and
unsupported activations.
"""

import numpy as np
import pytest

import lamina
from lamina import ops

from harness.recurrent import gru_step, lstm_step, reference_run, simple_step

RNG = np.random.default_rng(13)
BATCH, STEPS, FEATURES, UNITS = 2, 3, 3, 2
MASK = np.array([[1, 0, 1], [0, 1, 1]], dtype=bool)
DROPOUT = np.array([[2.0, 0.0], [0.0, 2.0]])


def lstm_reference(inputs, kernel, recurrent_kernel, bias=None, initial_h=None,
                   initial_c=None, mask=None, go_backwards=False, activation="tanh",
                   recurrent_activation="sigmoid", recurrent_dropout_mask=None):
    """``ops.lstm`` in plain NumPy: ``[sequence, final_h, final_c]``."""
    step = lstm_step(kernel, recurrent_kernel, bias, activation, recurrent_activation,
                     recurrent_dropout_mask)
    sequence, states = reference_run(step, inputs, [_state(initial_h), _state(initial_c)],
                                     mask, go_backwards)
    return [sequence, *states]


def gru_reference(inputs, kernel, recurrent_kernel, bias=None, initial_h=None, mask=None,
                  go_backwards=False, activation="tanh", recurrent_activation="sigmoid",
                  reset_after=True, recurrent_dropout_mask=None):
    """``ops.gru`` in plain NumPy: ``[sequence, final_h]``."""
    step = gru_step(kernel, recurrent_kernel, bias, reset_after, activation,
                    recurrent_activation, recurrent_dropout_mask)
    sequence, states = reference_run(step, inputs, [_state(initial_h)], mask, go_backwards)
    return [sequence, *states]


def simple_rnn_reference(inputs, kernel, recurrent_kernel, bias=None, initial_h=None,
                         mask=None, go_backwards=False, activation="tanh",
                         recurrent_dropout_mask=None):
    """``ops.simple_rnn`` in plain NumPy: ``[sequence, final_h]``."""
    step = simple_step(kernel, recurrent_kernel, bias, activation, recurrent_dropout_mask)
    sequence, states = reference_run(step, inputs, [_state(initial_h)], mask, go_backwards)
    return [sequence, *states]


def _state(initial):
    """The initial state (zeros when not given)."""
    return np.zeros((BATCH, UNITS)) if initial is None else initial


OPS = {
    "lstm": (ops.lstm, lstm_reference, 4, 2),
    "gru": (ops.gru, gru_reference, 3, 1),
    "gru_reset_before": (ops.gru, gru_reference, 3, 1),
    "simple_rnn": (ops.simple_rnn, simple_rnn_reference, 1, 1),
}

# (op, variant id, keyword arguments, with bias, with initial states, with dropout)
VARIANTS = {
    "default": ({}, True, False, False),
    "no_bias": ({}, False, False, False),
    "initial_states": ({}, True, True, False),
    "mask": ({"mask": MASK}, True, True, False),
    "go_backwards": ({"go_backwards": True}, True, False, False),
    "everything_on": ({"mask": MASK, "go_backwards": True}, True, True, True),
}
ACTIVATION_VARIANTS = {
    "lstm": [{"activation": "linear", "recurrent_activation": "hard_sigmoid"},
             {"activation": "sigmoid", "recurrent_activation": "tanh"}],
    "gru": [{"activation": "linear", "recurrent_activation": "hard_sigmoid"},
            {"activation": "sigmoid", "recurrent_activation": "tanh"}],
    "gru_reset_before": [{"activation": "linear", "recurrent_activation": "hard_sigmoid"}],
    "simple_rnn": [{"activation": "relu"}, {"activation": "linear"},
                   {"activation": "sigmoid"}],
}


def case_arrays(name, with_bias, with_states):
    """Inputs, kernel, recurrent kernel, bias and initial states of op ``name``."""
    _, _, gates, n_states = OPS[name]
    width = gates * UNITS
    arrays = [RNG.standard_normal((BATCH, STEPS, FEATURES)),
              RNG.standard_normal((FEATURES, width)) * 0.7,
              RNG.standard_normal((UNITS, width)) * 0.7]
    bias_shape = (2, width) if name == "gru" else (width,)
    arrays.append(RNG.standard_normal(bias_shape) * 0.3 + 0.05 if with_bias else None)
    if with_states:
        arrays += [RNG.standard_normal((BATCH, UNITS)) for _ in range(n_states)]
    return arrays


def with_dropout(function, dropout):
    """``function`` with ``recurrent_dropout_mask=dropout`` in the dtype of its input."""
    def call(inputs, *args, **kwargs):
        mask = None if dropout is None else dropout.astype(inputs.dtype)
        return function(inputs, *args, recurrent_dropout_mask=mask, **kwargs)
    return call


def check_recurrent(check_op, name, kwargs, with_bias, with_states, with_drop):
    """Run ``check_op`` on op ``name`` against its NumPy reference."""
    op, reference, _, _ = OPS[name]
    kwargs = dict(kwargs, reset_after=False) if name == "gru_reset_before" else kwargs
    arrays = case_arrays(name, with_bias, with_states)
    dropout = DROPOUT if with_drop else None
    outputs = check_op(with_dropout(op, dropout), arrays,
                       reference=with_dropout(reference, dropout), kwargs=kwargs,
                       atol=1e-7, rtol=1e-5)
    assert outputs[0].shape == (BATCH, STEPS, UNITS)
    assert len(outputs) == 1 + OPS[name][3]


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("name", list(OPS))
def test_recurrent_op(check_op, name, variant):
    kwargs, with_bias, with_states, with_drop = VARIANTS[variant]
    check_recurrent(check_op, name, kwargs, with_bias, with_states, with_drop)


@pytest.mark.parametrize("name,activations",
                         [(name, activations) for name, options in ACTIVATION_VARIANTS.items()
                          for activations in options],
                         ids=lambda value: "-".join(value.values())
                         if isinstance(value, dict) else value)
def test_recurrent_op_activations(check_op, name, activations):
    check_recurrent(check_op, name, dict(activations, mask=MASK), True, True, False)


def test_masked_steps_repeat_the_previous_output(engine):
    arrays = case_arrays("lstm", True, True)
    sequence, h, _ = ops.lstm(*arrays, mask=MASK)
    sequence = sequence.numpy()
    np.testing.assert_array_equal(sequence[0, 1], sequence[0, 0])     # row 0, step 1 masked
    np.testing.assert_array_equal(sequence[1, 0], arrays[4][1])       # row 1, step 0 masked
    np.testing.assert_array_equal(h.numpy(), sequence[:, -1])


@pytest.mark.parametrize("name", list(OPS))
def test_empty_sequences_return_the_initial_states(engine, name):
    """Zero time steps: the final states are the initial ones, the sequence is empty, and
    gradients reach the initial states (the weights get zeros)."""
    op, _, gates, n_states = OPS[name]
    kwargs = {"reset_after": False} if name == "gru_reset_before" else {}
    arrays = case_arrays(name, True, True)
    arrays[0] = arrays[0][:, :0]
    tensors = [lamina.Tensor(a, requires_grad=True) for a in arrays]
    sequence, *finals = op(*tensors, **kwargs)
    assert sequence.shape == (BATCH, 0, UNITS)
    for final, initial in zip(finals, arrays[4:]):
        np.testing.assert_array_equal(final.numpy(), initial)
    grads = lamina.grad(sum(ops.sum(final * 2.0) for final in finals), tensors)
    for grad, array in zip(grads[1:4], arrays[1:4]):
        np.testing.assert_array_equal(grad.numpy(), np.zeros_like(array))
    for grad in grads[4:]:
        np.testing.assert_array_equal(grad.numpy(), 2.0)


def test_weights_that_do_not_fit_are_rejected(engine):
    x = RNG.standard_normal((2, 3, 4))
    w = RNG.standard_normal
    with pytest.raises(ValueError, match=r"lstm: kernel must have shape \(4, 8\)"):
        ops.lstm(x, w((4, 12)), w((2, 8)))
    with pytest.raises(ValueError, match=r"lstm: recurrent_kernel must have shape \(2, 8\)"):
        ops.lstm(x, w((4, 8)), w((2, 12)))
    with pytest.raises(ValueError, match=r"lstm: bias must have shape \(8,\)"):
        ops.lstm(x, w((4, 8)), w((2, 8)), w(16))
    with pytest.raises(ValueError, match=r"gru: bias must have shape \(2, 6\)"):
        ops.gru(x, w((4, 6)), w((2, 6)), w(6))
    with pytest.raises(ValueError, match=r"simple_rnn: recurrent_kernel must have shape"):
        ops.simple_rnn(x, w((4, 2)), w((2, 3)))
    with pytest.raises(ValueError, match=r"recurrent_dropout_mask must have shape \(batch, "
                                         r"units\) = \(2, 2\), got \(1, 2\)"):
        ops.lstm(x, w((4, 8)), w((2, 8)), recurrent_dropout_mask=w((1, 2)))
    with pytest.raises(ValueError, match=r"recurrent mask must have shape \(batch, time\)"):
        ops.simple_rnn(x, w((4, 2)), w((2, 2)), mask=np.ones((2, 4), dtype=bool))
    with pytest.raises(ValueError, match=r"recurrent initial state must have shape"):
        ops.gru(x, w((4, 6)), w((2, 6)), initial_h=w((2, 3)))
    with pytest.raises(ValueError, match=r"inputs of shape \(batch, time, features\)"):
        ops.simple_rnn(x[0], w((4, 2)), w((2, 2)))


@pytest.mark.parametrize("name", ["lstm", "gru", "simple_rnn"])
def test_unsupported_activations_are_rejected(engine, name):
    op, _, gates, _ = OPS[name]
    x, kernel, recurrent = case_arrays(name, False, False)[:3]
    with pytest.raises(ValueError, match=r"recurrent activation must be one of .*'softmax'"):
        op(x, kernel, recurrent, activation="softmax")
    if name != "simple_rnn":
        with pytest.raises(ValueError, match="recurrent recurrent_activation must be one of"):
            op(x, kernel, recurrent, recurrent_activation="gelu")

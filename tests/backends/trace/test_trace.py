"""The tracer: a recorded step replays the same kernels into the same buffers (equal to
running the step again eagerly), host reads mark it untraceable, host-made arrays a call
writes are restored, step inputs and random draws follow each replay."""

import numpy as np

from lamina.backends import state
from lamina.backends.random import derived_generator_from
from lamina.backends.trace import (Recorder, Trace, TracedArray, TraceScalar, host_input,
                                   recording)


def _record(step, state_arrays, input_arrays):
    """Run ``step(*state views, *input views)`` while recording; returns (recorder, trace)."""
    recorder = Recorder(state_arrays, input_arrays)
    views = [a.view(TracedArray) for a in list(state_arrays) + list(input_arrays)]
    with recording(recorder):
        step(*views)
    return recorder, Trace(recorder.finish(), input_arrays, recorder.keep)


def _sgd_step(w, b, x, y):
    hidden = np.maximum(x @ w + b, 0.0)
    error = hidden.sum(axis=1, keepdims=True) - y
    grad_hidden = (error * (hidden > 0)).astype(np.float32)
    w -= host_input("learning_rate", 0.1) * (x.T @ grad_hidden)
    b -= 0.1 * grad_hidden.sum(axis=0)


def _batch(seed):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((4, 3)).astype(np.float32),
            rng.standard_normal((4, 1)).astype(np.float32))


def test_replay_equals_eager_steps_bit_for_bit():
    rng = np.random.default_rng(0)
    w, b = rng.standard_normal((3, 2)).astype(np.float32), np.zeros(2, np.float32)
    eager_w, eager_b = w.copy(), b.copy()
    x_buffer, y_buffer = _batch(0)
    recorder, trace = _record(_sgd_step, [w, b], [x_buffer, y_buffer])
    _sgd_step(eager_w, eager_b, *_batch(0))
    assert recorder.reasons == [] and trace.size > 5
    for seed in (1, 2, 3):
        trace.run(list(_batch(seed)), {"learning_rate": 0.1})
        _sgd_step(eager_w, eager_b, *_batch(seed))
        assert np.array_equal(w, eager_w) and np.array_equal(b, eager_b)


def test_step_inputs_are_evaluated_per_replay():
    value = np.ones(3, np.float32)

    def step(v):
        rate = host_input("learning_rate", 0.5)
        assert isinstance(rate, TraceScalar)
        v *= 1.0 - rate * 0.5

    _, trace = _record(step, [value], [])
    assert np.array_equal(value, np.full(3, 0.75, np.float32))
    trace.run([], {"learning_rate": 1.0})
    assert np.array_equal(value, np.full(3, 0.75 * np.float32(0.5), np.float32))
    assert host_input("learning_rate", 0.25) == 0.25     # outside a trace: the value


def test_host_reads_mark_the_step_untraceable():
    recorder, _ = _record(lambda x: float(x.sum()), [], [np.ones(3, np.float32)])
    assert recorder.reasons and "host read" in recorder.reasons[0]


def test_a_host_made_array_a_call_writes_is_restored_each_replay():
    total = np.zeros(1, np.float32)

    def step(out, x):
        scratch = np.zeros(3, np.float32)     # made on the host, then accumulated into
        scratch[:2] += x[:2]
        out += scratch.sum()

    x = np.ones(3, np.float32)
    _, trace = _record(step, [total], [x])
    for _ in range(3):
        trace.run([np.ones(3, np.float32)], {})
    assert total[0] == 8.0                     # 2 per step: the scratch restarts at zero


def test_random_draws_advance_the_generator_like_eager():
    backend = state.backend()
    out = np.zeros((2, 3), np.float32)
    generators = {"current": derived_generator_from(5, 0)}

    def step(target):
        target[...] = backend.random_uniform(generators["current"], (2, 3), np.float32)

    scope = state.push(generator=generators["current"])
    try:
        _, trace = _record(step, [out], [])
        trace.run([], {})
        replayed = out.copy()
    finally:
        state.restore(scope)
    eager = derived_generator_from(5, 0)
    backend.random_uniform(eager, (2, 3), np.float32)
    assert np.array_equal(replayed, backend.random_uniform(eager, (2, 3), np.float32))


def test_assignments_replay_into_their_regions():
    # basic-index assignments (prebound views) of an array and of a step input, and a
    # fancy-index one, each refilled from the replay's inputs
    counter, table = np.zeros((), np.int64), np.zeros((3, 2), np.float32)

    def step(count, values, x):
        count[...] = host_input("step", 1)
        values[1:] = x[:2]
        values[np.array([0])] = x[2:] * 2.0

    x = np.ones((3, 2), np.float32)
    recorder, trace = _record(step, [counter, table], [x])
    assert recorder.reasons == []
    new = np.arange(6, dtype=np.float32).reshape(3, 2)
    trace.run([new], {"step": 7})
    assert counter == 7
    assert np.array_equal(table, np.concatenate([new[2:] * 2.0, new[:2]]))


def test_numpy_functions_that_write_their_arguments_replay():
    # np.copyto(..., where=) (a masked carry) returns None and writes its first argument;
    # np.dot(..., out=) writes its out: both are calls of the trace
    def step(x, keep):
        new = x * 2.0
        np.copyto(new, x, where=~keep)
        product = np.empty((2, 2), np.float32)
        np.dot(new, new.T, out=product)
        x += product.sum()

    def eager(x, keep):
        step(x, keep)
        return x

    x, keep = np.ones((2, 3), np.float32), np.array([[True, False, True]] * 2)
    _, trace = _record(step, [], [x, keep])
    for seed in (1, 2):
        new_x = np.random.default_rng(seed).standard_normal((2, 3)).astype(np.float32)
        new_keep = np.random.default_rng(seed).random((2, 3)) > 0.5
        expected = eager(new_x.copy(), new_keep)
        trace.run([new_x, new_keep], {})
        assert np.array_equal(x, expected)

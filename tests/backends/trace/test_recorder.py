"""The recorder classifies buffers and describes two equal steps equally."""

import numpy as np

from lamina.backends.trace import Recorder, TracedArray, recording


def _record(values, inputs):
    recorder = Recorder([values], [inputs])
    with recording(recorder):
        v, x = values.view(TracedArray), inputs.view(TracedArray)
        v += (x * np.float32(2.0)).sum()
    return recorder


def test_equal_steps_have_equal_signatures_and_different_steps_do_not():
    values = np.zeros(2, np.float32)
    first = _record(values, np.ones(3, np.float32))
    second = _record(values, np.ones(3, np.float32))
    assert first.signature(first.finish()) == second.signature(second.finish())
    recorder = Recorder([values], [np.ones(3, np.float32)])
    with recording(recorder):
        v = values.view(TracedArray)
        v -= 1.0
    assert recorder.signature(recorder.finish()) != first.signature(first.finish())


def test_a_host_constant_is_part_of_the_signature():
    values = np.zeros(2, np.float32)

    def record(constant):
        recorder = Recorder([values], [])
        with recording(recorder):
            v = values.view(TracedArray)
            v += constant
        return recorder.signature(recorder.finish())

    assert record(np.ones(2, np.float32)) == record(np.ones(2, np.float32))
    assert record(np.ones(2, np.float32)) != record(np.full(2, 3.0, np.float32))

"""The recorder classifies buffers and describes two equal steps equally."""

import numpy as np

from lamina.backends.trace import Recorder, Trace, TracedArray, recording


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


def _reversed_blocks(work, blocks):
    """Runs the blocks last first (a thread pool may start them in any order)."""
    return [work(rows) for rows in blocks[::-1]][::-1]


def test_an_array_made_before_row_blocks_is_restored_before_all_of_them():
    # made on the host before the blocks and first read inside the first block: its
    # restore must precede every block, else a block that runs before it in a replay
    # starts from the previous replay's values
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    buffer = x.copy()
    recorder = Recorder([], [buffer])
    with recording(recorder):
        accumulator = np.zeros((4, 2), np.float32)
        inputs = buffer.view(TracedArray)

        def work(rows):
            accumulator[rows] += inputs[rows]

        recorder.run_blocks(_reversed_blocks, work, [slice(0, 2), slice(2, 4)])
        result = accumulator * np.float32(1.0)
    entries = recorder.finish()
    blocks = [e for e in entries if e.kind == "blocks"]
    def restores(calls):     # the zeros are restored by a fill (all bytes zero)
        return [i for i, e in enumerate(calls) if e.function is np.ndarray.fill]

    assert len(blocks) == 1 and not any(restores(group) for group in blocks[0].args)
    assert restores(entries) and restores(entries)[0] < entries.index(blocks[0])
    trace = Trace(entries, [buffer], recorder.keep)
    for scale in (1.0, 2.0, 3.0):
        trace.run([x * np.float32(scale)], {})
        assert np.array_equal(result.view(np.ndarray), x * np.float32(scale))

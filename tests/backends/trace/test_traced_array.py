"""TracedArray computes plainly outside a recording and notes host reads inside one."""

import numpy as np

from lamina.backends.trace import Recorder, TracedArray, recording


def test_outside_a_recording_the_hooks_just_compute():
    x = np.arange(6, dtype=np.float32).reshape(2, 3).view(TracedArray)
    assert type(x + 1) is np.ndarray and np.array_equal(x + 1, np.arange(1, 7).reshape(2, 3))
    assert type(np.concatenate([x, x])) is np.ndarray
    assert np.array_equal(x.astype(np.int64), [[0, 1, 2], [3, 4, 5]])
    assert x[1, 2] == 5.0 and np.array_equal(x[[1, 0]], [[3, 4, 5], [0, 1, 2]])


def test_inside_a_recording_calls_return_traced_views_and_host_reads_are_noted():
    data = np.arange(4, dtype=np.float32)
    recorder = Recorder([], [data])
    with recording(recorder):
        x = data.view(TracedArray)
        total = (x * 2.0).sum()
        assert isinstance(total, TracedArray) and total.shape == ()
        assert isinstance(x.argmax(), TracedArray) and isinstance(x[[0, 2]], TracedArray)
        assert recorder.reasons == []
        bool(total > 1)
    assert "host read" in recorder.reasons[0]
    assert [e.kind for e in recorder.finish()][:2] == ["ufunc", "ufunc"]

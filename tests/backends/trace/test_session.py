"""The recording session: engine hooks only while recording, checks replayed."""

import numpy as np
import pytest

from lamina.backends import state
from lamina.backends.trace import Recorder, Trace, TracedArray, host_check, recording


def _check_positive(x):
    if float(x.min()) < 0:
        raise ValueError("negative")


def test_hooks_are_removed_after_recording():
    backend = state.backend()
    empty, to_numpy = np.empty, backend.to_numpy
    with recording(Recorder([], [])):
        assert np.empty is not empty and isinstance(np.zeros(2), TracedArray)
    assert np.empty is empty and backend.to_numpy == to_numpy
    assert type(np.zeros(2)) is np.ndarray


def test_host_checks_run_in_every_replay():
    data = np.ones(3, np.float32)
    recorder = Recorder([], [data])
    with recording(recorder):
        host_check(_check_positive, data.view(TracedArray))
    assert recorder.reasons == []
    trace = Trace(recorder.finish(), [data], recorder.keep)
    trace.run([np.ones(3, np.float32)], {})
    with pytest.raises(ValueError, match="negative"):
        trace.run([-np.ones(3, np.float32)], {})


def test_one_recording_at_a_time():
    with recording(Recorder([], [])):
        with pytest.raises(RuntimeError, match="traced already"):
            with recording(Recorder([], [])):
                pass


def test_other_threads_compute_unrecorded_while_a_step_records():
    import threading

    values = np.ones(3, np.float32)
    recorder = Recorder([values], [])
    seen = {}

    def elsewhere():     # e.g. an eager model predicting on another thread
        made = np.zeros(2)
        seen["types"] = (type(made), type(values.view(TracedArray) * 2.0))

    with recording(recorder):
        traced = values.view(TracedArray)
        traced += 1.0
        worker = threading.Thread(target=elsewhere)
        worker.start()
        worker.join()
    assert seen["types"] == (np.ndarray, np.ndarray)
    assert len(recorder.finish()) == 1 and recorder.reasons == []

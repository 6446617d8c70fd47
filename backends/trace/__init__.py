"""Tracing a step: record the engine kernel calls of one eager step, replay them.

:class:`Recorder` (with :func:`recording`) runs a step on :class:`TracedArray` views and
notes every kernel call with its buffers; :class:`Trace` replays the calls into the same
buffers. The trace is engine-neutral data (callables on engine buffers); the recording hooks
(``__array_ufunc__`` / ``__array_function__``) are NumPy's. :func:`host_input` marks a host
scalar (the learning rate, the step count) as an input of the trace.
"""

from .recorder import Recorder, root_of
from .scalars import TraceScalar, host_input
from .session import active, host_check, mark_untraceable, recording
from .trace import Trace
from .traced_array import TracedArray

__all__ = ["Recorder", "Trace", "TraceScalar", "TracedArray", "active", "host_check", "host_input",
           "mark_untraceable", "recording", "root_of"]

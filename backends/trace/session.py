"""The recording session: which :class:`~lamina.backends.trace.recorder.Recorder` is
active (one per process, recording on its thread and on the engine's block threads while
they run the step's blocks), and the engine hooks installed while it records. Other
threads compute as if nothing recorded: for them :func:`active` is None and every hook
calls what it replaced.

Outside a session nothing here runs: the only hooks in the eager path are the optimizer's
:func:`~lamina.backends.trace.scalars.host_input` calls and the recurrent ops' mask
choice (:func:`active`), one global read each.
"""

import contextlib
import threading

import numpy

from .. import random as random_module, state

_ACTIVE = [None]
_LOCK = threading.Lock()
_PAUSED = threading.local()     # .depth: recording paused on this thread (draws, checks)
# Engine methods that hand out compiled kernels: while recording they hand out recording
# wrappers, so a kernel call becomes one trace entry.
_KERNEL_SOURCES = ("optimizer_kernel", "compiled_module", "lstm_cell_kernels",
                   "gru_cell_kernels", "recurrent_loop_kernels",
                   "attention_core_kernels", "dense_epilogue_kernels")


_CREATORS = ("empty", "zeros", "ones", "full", "empty_like", "zeros_like", "ones_like",
             "full_like")


def _traced_creator(create):
    uninitialized = create.__name__.startswith("empty")

    def creator(*args, **kwargs):
        array = create(*args, **kwargs)
        recorder = active()
        if type(array) is numpy.ndarray and recorder is not None:
            if uninitialized:   # no defined values to restore: a buffer of the trace
                recorder.new_buffer(array)
            else:
                recorder.new_array(array)
            return recorder.traced(array)
        return array

    return creator


def _traced_converter(convert, contiguous):
    """``asarray`` / ``ascontiguousarray`` that keep a TracedArray traced (NumPy's return
    a plain array: the calls on it would go unrecorded)."""
    def converter(value, dtype=None, **kwargs):
        recorder = active()
        if recorder is None or not recorder.is_traced(value) or kwargs or value.ndim == 0:
            return convert(value, dtype=dtype, **kwargs)
        if dtype is not None and numpy.dtype(dtype) != value.dtype:
            value = value.astype(dtype)
        return value.copy() if contiguous and not value.flags.c_contiguous else value

    return converter


def active():
    """The recorder of the step being traced on this thread (the step's own, or one
    running the step's blocks), or None (also while recording is :func:`paused`)."""
    recorder = _ACTIVE[0]
    if recorder is None or getattr(_PAUSED, "depth", 0) or not recorder.on_thread():
        return None
    return recorder


@contextlib.contextmanager
def paused():
    """Recording paused on this thread for the duration (a draw or a check the recorder
    notes as one entry computes unrecorded)."""
    _PAUSED.depth = getattr(_PAUSED, "depth", 0) + 1
    try:
        yield
    finally:
        _PAUSED.depth -= 1


def mark_untraceable(reason):
    """Note that the step being recorded cannot be replayed, and why."""
    recorder = active()
    if recorder is not None:
        recorder.untraceable(reason)


def host_check(function, *args):
    """``function(*args)``: a check that reads values on the host (label ranges) and
    raises on bad input. Inside a recorded step it runs unrecorded and joins the trace
    as one call, so every replay checks its batch too."""
    recorder = active()
    if recorder is None:
        return function(*args)
    return recorder.check(function, args)


class _KernelModule:
    """A compiled-kernel module whose functions record their calls."""

    def __init__(self, module, recorder):
        self._module = module
        self._recorder = recorder

    def __getattr__(self, name):
        return _wrap_kernels(getattr(self._module, name), self._recorder)


def _wrap_kernels(value, recorder):
    if value is None or isinstance(value, (int, float, str, bool)):
        return value
    if isinstance(value, tuple):
        return tuple(_wrap_kernels(item, recorder) for item in value)
    if getattr(value, "records_calls", False):
        return value
    if callable(value):
        def kernel(*args, **kwargs):
            if active() is not recorder:     # another thread's call
                return value(*args, **kwargs)
            return recorder.kernel(value, args, kwargs)

        kernel.records_calls = True
        return kernel
    return _KernelModule(value, recorder)


@contextlib.contextmanager
def recording(recorder):
    """Make ``recorder`` the active one and hook the engine's kernel sources, random draws,
    host transfers and block threads for the duration."""
    backend = state.backend()
    streams = {}
    original_stream_generator = random_module.SeededStream.generator

    def stream_generator(stream):
        generator = original_stream_generator(stream)
        streams[id(generator)] = stream
        return generator

    def resolve(generator):
        if generator is state.generator():
            return state.generator
        stream = streams.get(id(generator))
        if stream is not None:
            return stream.generator
        recorder.untraceable("a random draw from a generator made inside the step")
        return lambda: generator

    def drawing(name):
        original = getattr(backend, name)

        def draw(generator, *args, **kwargs):
            if active() is recorder:
                generator = recorder.generator(generator, resolve(generator))
            return original(generator, *args, **kwargs)

        return draw

    def to_numpy(array):
        if active() is recorder:
            recorder.host_read(array)
        return original_to_numpy(recorder.plain(array))

    def run_blocks(work, blocks):
        if active() is not recorder:
            return original_run_blocks(work, blocks)
        return recorder.run_blocks(original_run_blocks, work, blocks)

    def kernel_source(source):
        return lambda *args: _wrap_kernels(source(*args), recorder)

    original_to_numpy = backend.to_numpy
    original_run_blocks = backend.run_blocks
    patches = {name: kernel_source(getattr(backend, name))
               for name in _KERNEL_SOURCES if hasattr(backend, name)}
    patches.update(random_normal=drawing("random_normal"),
                   random_uniform=drawing("random_uniform"),
                   to_numpy=to_numpy, run_blocks=run_blocks)
    with _LOCK:
        if _ACTIVE[0] is not None:
            raise RuntimeError("a step is being traced already")
        _ACTIVE[0] = recorder
    shadowed = {name: backend.__dict__[name] for name in patches if name in backend.__dict__}
    backend.__dict__.update(patches)
    random_module.SeededStream.generator = stream_generator
    # windows over a traced array (convolution) stay traced views
    tricks = numpy.lib.stride_tricks
    original_as_strided = tricks.as_strided
    tricks.as_strided = lambda x, *args, **kwargs: original_as_strided(
        x, *args, **{**kwargs, "subok": True})
    # arrays the step creates (outputs, scratch) are traced too, so the calls on them are
    # recorded; only on the step's threads
    created = {name: getattr(numpy, name) for name in _CREATORS}
    for name, original in created.items():
        setattr(numpy, name, _traced_creator(original))
    converters = {name: getattr(numpy, name) for name in ("asarray", "ascontiguousarray")}
    for name, original in converters.items():
        setattr(numpy, name, _traced_converter(original, name == "ascontiguousarray"))
    try:
        yield recorder
    finally:
        for name, original in {**created, **converters}.items():
            setattr(numpy, name, original)
        tricks.as_strided = original_as_strided
        random_module.SeededStream.generator = original_stream_generator
        for name in patches:
            backend.__dict__.pop(name, None)
        backend.__dict__.update(shadowed)
        _ACTIVE[0] = None

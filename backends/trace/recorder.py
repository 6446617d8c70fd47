"""The :class:`Recorder`: runs a step's kernel calls while noting each as a trace entry.

Every array a call touches is classified by the memory it views (its root array):
``state`` (variables, optimizer slots, metric totals: registered before the step),
``input`` (the batch buffers), ``tmp`` (written first by a recorded call: results the
recorder allocates, or scratch a call overwrites entirely) and ``const`` (read before any
recorded call wrote it: arrays the step made on the host). A const that a recorded call
later writes is restored from a snapshot at its first use, so each replay starts it from
the eager step's value. The trace keeps every buffer alive, so views taken while recording
stay valid views in every replay.
"""

import functools
import hashlib
import threading

import numpy as np

from . import session
from .scalars import TraceScalar, structure
from .traced_array import TracedArray


def root_of(array):
    """The array that owns ``array``'s memory (also through the holder object that
    ``as_strided`` views keep as their base)."""
    while True:
        base = array.base
        if not isinstance(base, np.ndarray):
            base = getattr(base, "base", None)
            if not isinstance(base, np.ndarray):
                return array
        array = base


# NumPy functions that write into their first argument (and return None).
_WRITES_FIRST_ARGUMENT = frozenset((np.copyto, np.put, np.place, np.putmask,
                                    np.fill_diagonal, np.put_along_axis))


class Entry:
    """One recorded call: ``kind`` (how the replay calls it), the callable, its arguments
    (plain arrays, TraceScalars, Python values) and the buffers it fills."""

    __slots__ = ("kind", "function", "args", "kwargs", "outs")

    def __init__(self, kind, function, args, kwargs=None, outs=()):
        self.kind = kind
        self.function = function
        self.args = args
        self.kwargs = kwargs or {}
        self.outs = outs


class Recorder:
    """Records one step. ``state`` and ``inputs`` are the plain arrays whose memory the
    step reads and updates across steps and the batch buffers."""

    def __init__(self, state_arrays, input_arrays):
        self.entries = []
        self.blocks = threading.local()   # .entries: the list a block's thread records into
        self.thread = threading.get_ident()   # the thread the step runs on
        self.hoisted = []    # restores of consts first read inside the running blocks
        self._lock = threading.Lock()         # blocks record from several threads
        self.roles = {}
        self.keep = []
        self.consts = []          # (root, snapshot, entry index of its restore)
        self.const_written = set()
        self.created = set()          # ids of arrays made inside the step (not empty)
        self.kernel_outputs = set()   # consts first seen as a compiled kernel's argument
        self.reasons = []
        self.tmp_count = 0
        self.step_inputs = []
        for array in state_arrays:
            self._register(root_of(array), ("state", id(root_of(array))))
        for index, array in enumerate(input_arrays):
            self._register(root_of(array), ("input", index))

    # ------------------------------------------------------------- bookkeeping
    def append(self, entry):
        """Add ``entry`` to the step's list, or to the block this thread runs."""
        block = getattr(self.blocks, "entries", None)
        (self.entries if block is None else block).append(entry)

    def in_block(self):
        """True on a thread running one of the step's blocks."""
        return getattr(self.blocks, "entries", None) is not None

    def on_thread(self):
        """True on the thread the step runs on, or on one running one of its blocks."""
        return threading.get_ident() == self.thread or self.in_block()

    def run_blocks(self, run, work, blocks):
        """``run(work, blocks)`` (the engine's threaded blocks), each block's calls recorded
        into its own list; the trace runs the lists the same way. A const the blocks read
        first is restored before the blocks run, not inside the block that read it first:
        the other blocks may read it before that block starts."""
        groups = [[] for _ in blocks]
        outermost = not self.in_block()
        if outermost:
            self.hoisted = []

        def traced(pair):
            index, rows = pair
            outer = getattr(self.blocks, "entries", None)   # a block nested in a block
            self.blocks.entries = groups[index]
            try:
                return work(rows)
            finally:
                self.blocks.entries = outer

        results = run(traced, list(enumerate(blocks)))
        if outermost:
            for slot in self.hoisted:
                self.append(slot)
            self.hoisted = []
        self.append(Entry("blocks", run, groups))
        return results

    def _register(self, root, role):
        self.roles[id(root)] = role
        self.keep.append(root)

    def untraceable(self, reason):
        """Note a reason the step cannot be replayed (the first one is reported)."""
        if reason not in self.reasons:
            self.reasons.append(reason)

    def step_input(self, name):
        """The step reads host input ``name`` (once: a second optimizer update in one step
        would need a second step count)."""
        if name in self.step_inputs:
            self.untraceable(f"the step reads the host input {name!r} twice (two optimizer "
                             "updates in one step)")
        self.step_inputs.append(name)

    def host_read(self, array):
        """A value leaves the engine for the host: the step cannot be replayed."""
        if isinstance(array, TracedArray):
            self.untraceable("a host read (float(tensor), .numpy()) inside the step")

    @staticmethod
    def traced(array):
        """A TracedArray view of ``array``."""
        return array.view(TracedArray)

    @staticmethod
    def is_traced(value):
        return isinstance(value, TracedArray)

    @staticmethod
    def plain(value):
        """``value`` with TracedArrays as plain ndarray views."""
        return value.view(np.ndarray) if isinstance(value, TracedArray) else value

    def _read(self, array):
        root = root_of(array)
        if id(root) in self.roles:
            return
        with self._lock:
            if id(root) in self.roles:      # another block registered it meanwhile
                return
            index = len(self.consts)
            self.consts.append((root, np.array(root.view(np.ndarray), copy=True)))
            self._register(root, ("const", index))
            slot = _RestoreSlot(index)      # kept only if a call writes it later
            if self.in_block():
                self.hoisted.append(slot)
            else:
                self.append(slot)

    def _write(self, array, full):
        root = root_of(array)
        role = self.roles.get(id(root))
        if role is None and full and array.size == root.size:
            self._new_tmp(root)
            return
        if role is None:
            self._read(array)
            role = self.roles[id(root)]
        if role[0] == "const":
            if id(root) not in self.created:
                self.untraceable("it writes an array that is neither state of the model, "
                                 "its optimizer and metrics nor made in the step (a cache "
                                 "kept elsewhere)")
            self.const_written.add(role[1])

    def new_buffer(self, array):
        """``array`` (made by ``empty`` inside the step) is a buffer of the trace."""
        self._new_tmp(root_of(array))

    def new_array(self, array):
        """``array`` was made (``zeros``, ``full``) inside the step: writes into it are
        restored from its first value at each replay."""
        self.created.add(id(array))
        self.keep.append(array)

    def _new_tmp(self, root):
        self._register(root, ("tmp", self.tmp_count))
        self.tmp_count += 1

    def _spec(self, value, written=False):
        """``value`` with arrays as plain views (their reads noted)."""
        if isinstance(value, np.ndarray):
            self._read(value)
            if written:
                self._write(value, False)
            return value.view(np.ndarray)
        if isinstance(value, (tuple, list)):
            return type(value)(self._spec(item, written) for item in value)
        if isinstance(value, dict):
            return {key: self._spec(item, written) for key, item in value.items()}
        return value

    def _buffer(self, value):
        """A new trace buffer holding the freshly computed ``value``; returns the traced
        view handed to the step and the plain view the replay writes."""
        value = np.asarray(value)
        buffer = TracedArray(value.shape, value.dtype)
        plain = buffer.view(np.ndarray)
        np.copyto(plain, value)
        self._new_tmp(root_of(buffer))
        return buffer, plain

    def _results(self, result, inputs):
        """(what the step gets back, the buffers to fill, or None for a view of ``inputs``)."""
        if isinstance(result, (tuple, list)):
            pairs = [self._results(item, inputs) for item in result]
            return type(result)(p[0] for p in pairs), [p[1] for p in pairs]
        if isinstance(result, np.ndarray):
            if id(root_of(result)) in self.roles:
                return result.view(TracedArray), None
            return self._buffer(result)
        if isinstance(result, np.generic):
            return self._buffer(result)
        if isinstance(result, (bool, float, complex)):
            self.untraceable("a host value (Python bool/float) computed from an array")
        return result, None

    # ------------------------------------------------------------- recording
    def ufunc(self, ufunc, method, inputs, kwargs):
        """A ufunc call (``np.add(a, b)``, ``a += b``, ``a.sum()``)."""
        outs = kwargs.pop("out", None)
        args = self._spec(list(inputs), written=method == "at")
        kwargs = self._spec(kwargs)
        full = method == "__call__" and "where" not in kwargs
        if outs is not None:
            for out in outs:
                self._write(out, full)
            plain_outs = tuple(self.plain(out) for out in outs)
        call = getattr(ufunc, method)
        concrete_args, concrete_kwargs = _concrete(args), _concrete(kwargs)
        if method == "at":
            call(*concrete_args, **concrete_kwargs)
            self.append(Entry("call", call, args, kwargs))
            return None
        if outs is not None:
            single = plain_outs[0] if method != "__call__" else plain_outs
            call(*concrete_args, out=single, **concrete_kwargs)
            self.append(Entry("ufunc", call, args, kwargs, plain_outs))
            return outs[0] if len(outs) == 1 else outs
        result = call(*concrete_args, **concrete_kwargs)
        returned, buffers = self._results(result, ())
        buffers = tuple(buffers) if isinstance(buffers, list) else (buffers,)
        self.append(Entry("ufunc", call, args, kwargs, buffers))
        return returned

    def function(self, func, args, kwargs):
        """A ``numpy`` function given a TracedArray (``np.where``, ``np.concatenate``).
        One that writes an array it is given (``np.copyto(dst, src, where=...)``,
        ``np.put``: it returns None; or its ``out=``) is replayed as the same call."""
        out = kwargs.get("out")
        in_place = func in _WRITES_FIRST_ARGUMENT and args
        if out is not None or in_place:
            written = self._spec(list(args[:1]), written=bool(in_place))
            args = written + self._spec(list(args[1:]))
            kwargs = {key: self._spec(value, written=key == "out")
                      for key, value in kwargs.items()}
            result = func(*_concrete(args), **_concrete(kwargs))
            self.append(Entry("call", func, args, kwargs))
            return None if result is None else out
        args, kwargs = self._spec(list(args)), self._spec(kwargs)
        result = func(*_concrete(args), **_concrete(kwargs))
        return self._finish(func, args, kwargs, result)

    def method(self, name, array, args, kwargs, in_place):
        """A C-implemented ndarray method (``argmax``, ``dot``, ``reshape``, ``sort``)."""
        call_args = self._spec([array] + list(args), written=in_place)
        kwargs = self._spec(kwargs)
        function = getattr(np.ndarray, name)
        result = function(*_concrete(call_args), **_concrete(kwargs))
        if in_place:
            self.append(Entry("call", function, call_args, kwargs))
            return result
        return self._finish(function, call_args, kwargs, result)

    def kernel(self, function, args, kwargs):
        """A compiled kernel call: its array arguments may all be written. An array the
        step made on the host and hands to a kernel first is taken as the kernel's output
        buffer (restored each replay, its uninitialized contents not compared)."""
        fresh = [root_of(a) for a in args
                 if isinstance(a, np.ndarray) and id(root_of(a)) not in self.roles]
        args, kwargs = self._spec(list(args), written=True), self._spec(kwargs)
        self.kernel_outputs.update(self.roles[id(root)][1] for root in fresh
                                   if self.roles[id(root)][0] == "const")
        result = function(*_concrete(args), **_concrete(kwargs))
        return self._finish(function, args, kwargs, result, always=True)

    def _finish(self, function, args, kwargs, result, always=False):
        returned, buffers = self._results(result, args)
        outs = buffers if isinstance(buffers, list) else [buffers]
        if any(out is not None for out in outs):
            self.append(Entry("copy", function, args, kwargs, outs))
        elif always:
            self.append(Entry("call", function, args, kwargs))
        return returned

    def check(self, function, args):
        """A host-side input check (:func:`~lamina.backends.trace.host_check`), run with
        recording paused and replayed as it is."""
        args = self._spec(list(args))
        with session.paused():
            result = function(*args)
        self.append(Entry("call", function, args))
        return result

    def cast(self, array, dtype):
        """``astype`` / ``copy``: the replay copies into the buffer with ``copyto``."""
        source = self._spec(array)
        buffer, plain = self._buffer(source.astype(dtype))
        self.append(Entry("cast", np.copyto, [plain, source],
                                  {"casting": "unsafe"}))
        return buffer

    def getitem(self, array, key):
        """``array[key]``: a view when basic indexing, else a gathered copy."""
        source, key = self._spec(array), self._spec(key)
        result = source[_concrete(key)]
        if isinstance(result, np.ndarray) and root_of(result) is root_of(source):
            return result.view(TracedArray)
        buffer, plain = self._buffer(result)
        self.append(Entry("getitem", None, [source, key], outs=(plain,)))
        return buffer

    def setitem(self, array, key, value):
        """``array[key] = value``."""
        value, key = self._spec(value), self._spec(key)
        target = self._spec(array, written=True)
        target[_concrete(key)] = _concrete(value)
        self.append(Entry("setitem", None, [target, key, value]))

    def generator(self, generator, getter):
        """A stand-in for ``generator`` whose draws are trace entries; ``getter()`` gives
        the generator to draw from at replay time."""
        return _RecordingGenerator(self, generator, getter)

    def draw(self, generator, getter, name, size, dtype):
        """One draw of ``generator`` (the generator allocates unrecorded)."""
        with session.paused():
            result = getattr(generator, name)(size=size, dtype=dtype)
        buffer, plain = self._buffer(result)
        self.append(Entry("draw", getter, [name, np.dtype(dtype)], outs=(plain,)))
        return buffer

    # ------------------------------------------------------------- result
    def finish(self):
        """The entries with the restores of written consts filled in."""
        def resolve(entries):
            out = []
            for entry in entries:
                if isinstance(entry, _RestoreSlot):
                    if entry.index in self.const_written:
                        root, snapshot = self.consts[entry.index]
                        out.append(_restore(root.view(np.ndarray), snapshot))
                elif entry.kind == "blocks":
                    out.append(Entry("blocks", entry.function,
                                     [resolve(group) for group in entry.args]))
                else:
                    out.append(entry)
            return out

        return resolve(self.entries)

    def signature(self, entries, numbering=None):
        """A description of ``entries`` equal for two steps that call the same kernels on
        buffers in the same roles (state by identity, the rest by first use)."""
        numbering = {} if numbering is None else numbering
        return [("blocks", entry.function,
                 [self.signature(group, numbering) for group in entry.args])
                if entry.kind == "blocks" else
                (entry.kind, _callable_key(entry.function),
                 self._describe(entry.args, numbering),
                 self._describe(entry.kwargs, numbering),
                 self._describe(list(entry.outs), numbering)) for entry in entries]

    def _describe(self, value, numbering):
        if isinstance(value, np.ndarray):
            root = root_of(value)
            role = self.roles.get(id(root), ("snapshot",))
            if role[0] == "const":   # compared by value, unless a kernel's output buffer
                role = ("const", numbering.setdefault(id(root), len(numbering)),
                        None if role[1] in self.kernel_outputs else
                        hashlib.blake2b(self.consts[role[1]][1].tobytes()).digest())
            elif role[0] in ("tmp", "snapshot"):
                role = (role[0], numbering.setdefault(id(root), len(numbering)))
            offset = value.__array_interface__["data"][0] - root.__array_interface__["data"][0]
            return role + (offset, value.shape, value.strides, value.dtype.str)
        if isinstance(value, TraceScalar):
            return ("dynamic", structure(value))
        if isinstance(value, (tuple, list)):
            return (type(value).__name__,) + tuple(self._describe(v, numbering) for v in value)
        if isinstance(value, dict):
            return tuple((k, self._describe(v, numbering)) for k, v in sorted(value.items()))
        if isinstance(value, slice):
            return ("slice", value.start, value.stop, value.step)
        if isinstance(value, np.dtype):
            return ("dtype", value.str)
        return (type(value).__name__, value)


def _restore(array, snapshot):
    """The entry that puts ``array`` back to ``snapshot``: a fill when every byte is zero
    (a ``zeros`` accumulator: only writes, no pass over the snapshot), else a copy."""
    if not snapshot.view(np.uint8).any():
        return Entry("call", np.ndarray.fill, [array, 0])
    return Entry("cast", np.copyto, [array, snapshot], {})


def _callable_key(function):
    """``function`` as the signature compares it: a ``functools.partial`` (an engine's
    kernel with its BLAS routine bound, made anew per call) by what it binds."""
    if isinstance(function, functools.partial):
        return ("partial", _callable_key(function.func), function.args,
                tuple(sorted(function.keywords.items())))
    return function


class _RecordingGenerator:
    """Stands in for an engine generator inside a recorded step (the draws the engine's
    ``random_uniform`` / ``random_normal`` make)."""

    def __init__(self, recorder, generator, getter):
        self._recorder, self._generator, self._getter = recorder, generator, getter

    def random(self, size=None, dtype="float64"):
        return self._recorder.draw(self._generator, self._getter, "random", size, dtype)

    def standard_normal(self, size=None, dtype="float64"):
        return self._recorder.draw(self._generator, self._getter, "standard_normal", size,
                                   dtype)

    def __getattr__(self, name):
        self._recorder.untraceable(f"a random draw ({name}) the tracer does not replay")
        return getattr(self._generator, name)


class _RestoreSlot:
    """Where a const was first used: its restore goes here if a call writes it."""

    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index


def _concrete(value):
    """``value`` with TraceScalars as plain floats (what the kernel receives)."""
    if isinstance(value, TraceScalar):
        return float(value)
    if isinstance(value, (tuple, list)):
        return type(value)(_concrete(item) for item in value)
    if isinstance(value, dict):
        return {key: _concrete(item) for key, item in value.items()}
    return value

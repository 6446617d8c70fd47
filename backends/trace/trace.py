"""A :class:`Trace`: the recorded kernel calls of one step, replayed into their buffers.

Each entry becomes one small closure over plain arrays: no Tensor, no autodiff node, no
op dispatch, no allocation for ufuncs, casts and draws (they write into their buffers with
``out=``); calls without an ``out`` argument copy their result in. Step inputs (the
learning rate, the step count) are evaluated once per replay and read by the entries whose
arguments depend on them. The trace holds no host synchronization: every entry is an
engine call on engine buffers.
"""

import functools

import numpy as np

from .scalars import Program, TraceScalar


class Trace:
    """Replays ``entries`` (from :meth:`Recorder.finish`).

    Args:
        entries: the recorded entries, in call order.
        inputs: the plain input buffers, in the order :meth:`run` receives the batch.
        keep: objects the buffers need alive.
    """

    def __init__(self, entries, inputs, keep):
        self.inputs = list(inputs)
        self._keep = keep
        self._scalars = []           # the TraceScalars the entries read, evaluated per run
        self._values = []
        self._calls = [self._compile(entry) for entry in entries]
        self._program = Program(self._scalars)
        self.size = len(self._calls)

    def _slot(self, value):
        """``value``, or for a TraceScalar a getter of its per-run value."""
        if isinstance(value, TraceScalar):
            index = len(self._scalars)
            self._scalars.append(value)
            values = self._values
            return _Dynamic(lambda: values[index])
        if isinstance(value, (tuple, list)) and any(_dynamic(v) for v in value):
            parts = [self._slot(v) for v in value]
            kind = type(value)
            return _Dynamic(lambda: kind(_value(p) for p in parts))
        return value

    def _compile(self, entry):
        args = [self._slot(a) for a in entry.args]
        kwargs = {k: self._slot(v) for k, v in entry.kwargs.items()}
        dynamic = any(isinstance(a, _Dynamic) for a in args) or any(
            isinstance(v, _Dynamic) for v in kwargs.values())
        function, outs, kind = entry.function, entry.outs, entry.kind
        if kind == "ufunc":
            kwargs["out"] = outs if function.__name__ == "__call__" else outs[0]
            if not dynamic:
                return _bound(function, args, kwargs)
            return lambda: function(*[_value(a) for a in args],
                                    **{k: _value(v) for k, v in kwargs.items()})
        if kind == "cast":
            return _bound(function, args, kwargs)
        if kind == "draw":
            name, dtype = args
            (out,) = outs
            return lambda: getattr(function(), name)(dtype=dtype, out=out)
        if kind == "getitem":
            source, key = args
            (out,) = outs
            return lambda: np.copyto(out, source[_value(key)])
        if kind == "setitem":
            target, key, value = args
            view = None if isinstance(key, _Dynamic) else target[key]
            if isinstance(view, np.ndarray) and np.may_share_memory(view, target):
                # basic indexing: the region is a view, taken once; the assignment is a
                # copy with setitem's casting
                if isinstance(value, _Dynamic):
                    get = value.get
                    return lambda: np.copyto(view, get(), casting="unsafe")
                return functools.partial(np.copyto, view, value, casting="unsafe")
            return lambda: target.__setitem__(_value(key), _value(value))
        if kind == "blocks":   # the engine runs the blocks' calls as it ran the blocks
            groups = [[self._compile(e) for e in group] for group in entry.args]
            return lambda: function(_run_all, groups)
        if kind == "call":
            if not dynamic:
                return _bound(function, args, kwargs)
            return lambda: function(*[_value(a) for a in args],
                                    **{k: _value(v) for k, v in kwargs.items()})
        if function is np.ndarray.reshape and kwargs.get("order", "C") == "C" and \
                len(outs) == 1 and not dynamic:
            # a reshape that had to copy (a strided window view): copy once, straight
            # into the buffer viewed in the source's shape (no array made, no second copy)
            (source, *_), (out,) = args, outs
            return functools.partial(np.copyto, out.reshape(source.shape), source)

        def copy():
            result = function(*[_value(a) for a in args],
                              **{k: _value(v) for k, v in kwargs.items()})
            if len(outs) == 1 and not isinstance(result, (tuple, list)):
                result = (result,)
            for out, value in zip(outs, result):
                if out is not None:
                    np.copyto(out, value)

        return copy

    def run(self, batch, step_inputs):
        """One replay: copy ``batch`` (arrays, in :attr:`inputs` order) into the input
        buffers, evaluate the step inputs ``{name: value}``, run every call."""
        for buffer, array in zip(self.inputs, batch):
            np.copyto(buffer, array)
        if self._scalars:
            self._values[:] = self._program.run(step_inputs)
        _run_all(self._calls)


def _run_all(calls):
    for call in calls:
        call()


class _Dynamic:
    """An argument computed per run."""

    __slots__ = ("get",)

    def __init__(self, get):
        self.get = get


def _dynamic(value):
    if isinstance(value, TraceScalar):
        return True
    return isinstance(value, (tuple, list)) and any(_dynamic(v) for v in value)


def _value(value):
    return value.get() if type(value) is _Dynamic else value


def _bound(function, args, kwargs):
    return functools.partial(function, *args, **kwargs)

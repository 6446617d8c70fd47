"""The compiled step of ``compile(jit_compile=True)``: record a step's kernel calls, replay.

:class:`CompiledStep` wraps one of the model's steps (``train_step``, ``test_step`` or
``predict_step``). Per input signature (the batch's structure, shapes and dtypes, the
trainable variables) the first call runs eagerly (it builds what is created lazily:
optimizer slots, packed buffers), the second runs eagerly while a
:class:`~lamina.backends.trace.Recorder` notes every kernel call, the third records again
and must give the same calls on the same buffers (else a fourth try, then eager mode);
from then on the step is a :class:`~lamina.backends.trace.Trace` replay into preallocated
buffers, with the learning rate and the step count as its inputs. A step that cannot be
replayed (a host read such as ``float(tensor)``, Python control flow on the step inputs, op
sequences that keep changing, a random draw the tracer cannot re-resolve) runs eagerly from
then on, after one warning naming the reason. Traces are kept per signature, least recently
used dropped beyond ``MAX_TRACES``. Compiled steps run one at a time in a process (a
replay writes its trace's buffers; a recording views the model's state as traced arrays),
so ``predict`` from several threads is correct, one batch after another.
"""

import collections
import threading
import warnings

import numpy as np

from ...backends.autodiff import Tensor, wrap
from ...backends.trace import Recorder, Trace, TracedArray, active, recording
from ..distribution import training_hook as distribution_hook

#: Traces kept per step kind; the least recently used is dropped beyond this.
MAX_TRACES = 8
#: Recorded eager steps per signature before giving up on a changing op sequence.
MAX_RECORDINGS = 3
_RUNNING = threading.RLock()     # held by the compiled step running now (see the module doc)


class JitFallbackWarning(UserWarning):
    """A step ``jit_compile=True`` could not trace runs eagerly (the message says why)."""


class CompiledStep:
    """``step(data)`` replayed from traces, for ``model``'s step ``kind``
    (``"train"``, ``"test"`` or ``"predict"``).

    ``traces_built`` counts the traces made (a repeated ``fit`` reuses them);
    ``fallback_reason`` is None until the step falls back to eager mode.
    """

    def __init__(self, model, kind):
        self.model = model
        self.kind = kind
        self.traces_built = 0
        self.replays = 0
        self.fallback_reason = None
        self._cache = collections.OrderedDict()   # signature -> _Compiled or _Pending

    def _step_function(self):
        return getattr(self.model, f"{self.kind}_step")

    def __call__(self, data):
        with _RUNNING:
            return self._call(data)

    def _call(self, data):
        step = self._step_function()
        if self.fallback_reason is None and distribution_hook.current() is not None:
            self._fall_back("data-parallel training is active (its gradient allreduce and "
                            "synchronized statistics are collectives a replay cannot repeat)")
        if self.fallback_reason is not None:
            return step(data)
        leaves, rebuild = _flatten(data)
        signature = (tuple(None if a is None else (a.shape, a.dtype.str) for a in leaves),
                     tuple(map(id, self.model.trainable_weights)))
        cached = self._cache.get(signature)
        if isinstance(cached, _Compiled) and cached.intact():
            self._cache.move_to_end(signature)
            self.replays += 1
            return cached.run(self.model, [a for a in leaves if a is not None])
        if cached is None or active() is not None:
            # the first step of a signature runs plainly: it builds what the model, the
            # optimizer and the metrics create lazily (slots, packed buffers), so the
            # recorded steps see all their state in place (so does a step while another
            # thread records one)
            if cached is None:
                self._store(signature, _WARM)
            return step(data)
        return self._record(step, signature, leaves, rebuild, cached)

    # ------------------------------------------------------------- recording
    def _record(self, step, signature, leaves, rebuild, previous):
        model = self.model
        swaps = _StateSwaps(_state_roots(model))
        buffers = [None if a is None else np.array(a, copy=True).view(TracedArray)
                   for a in leaves]
        inputs = [b.view(np.ndarray) for b in buffers if b is not None]
        recorder = Recorder(swaps.arrays, inputs)
        swaps.swap()
        try:
            with recording(recorder):
                result = step(rebuild(buffers))
        finally:
            kept = swaps.restore()
            optimizer = getattr(model, "optimizer", None)
            if optimizer is not None:
                optimizer.iterations = int(optimizer.iterations)
        result = _plain_result(result)
        if recorder.reasons:
            self._fall_back(recorder.reasons[0])
            return result
        entries = recorder.finish()
        pending = _Pending(recorder, entries, swaps, inputs, result)
        if kept and isinstance(previous, _Pending) and previous.matches(pending):
            compiled = _Compiled(pending, self.kind)
            self._store(signature, compiled)
            self.traces_built += 1
        else:
            pending.attempts = previous.attempts + 1 if isinstance(previous, _Pending) else 1
            if pending.attempts >= MAX_RECORDINGS:
                self._fall_back("its kernel calls change from one step to the next (a layer "
                                "or train_step whose op sequence depends on the step)")
            else:
                self._store(signature, pending)
        return _copy_result(result) if self.kind == "predict" else result

    def _store(self, signature, value):
        self._cache[signature] = value
        self._cache.move_to_end(signature)
        while len(self._cache) > MAX_TRACES:
            self._cache.popitem(last=False)

    def _fall_back(self, reason):
        self.fallback_reason = reason
        self._cache.clear()
        warnings.warn(f"jit_compile=True: the {self.kind} step of model "
                      f"'{getattr(self.model, 'name', '?')}' runs eagerly: {reason}",
                      JitFallbackWarning, stacklevel=4)


_WARM = "warm"   # the cache's mark of a signature whose first step ran


class _Pending:
    """One recorded eager step, waiting for the next one to confirm its calls."""

    def __init__(self, recorder, entries, swaps, inputs, result):
        self.recorder = recorder
        self.entries = entries
        self.signature = recorder.signature(entries)
        self.swaps = swaps
        self.inputs = inputs
        self.result = result
        self.attempts = 1

    def matches(self, other):
        """The same calls, on buffers in the same roles, with equal host-made consts."""
        return self.signature == other.signature


class _Compiled:
    """A confirmed trace with what a replay needs around it."""

    def __init__(self, pending, kind):
        recorder = pending.recorder
        self.trace = Trace(pending.entries, pending.inputs, recorder.keep)
        self.swaps = pending.swaps
        self.uses_step = "step" in recorder.step_inputs
        self.counts = "iterations" in recorder.step_inputs   # an optimizer update ran
        self.uses_rate = "learning_rate" in recorder.step_inputs
        self.kind = kind
        self.result = pending.result   # its Tensors wrap trace buffers each replay refills

    def intact(self):
        return self.swaps.intact()

    def run(self, model, batch):
        inputs = {}
        optimizer = getattr(model, "optimizer", None)
        if self.uses_rate:
            inputs["learning_rate"] = optimizer.learning_rate
        if self.uses_step or self.counts:
            inputs["step"] = inputs["iterations"] = optimizer.iterations + 1
        self.trace.run(batch, inputs)
        if self.counts:
            optimizer.iterations = inputs["iterations"]
        result = self.result
        if result is None:
            return None
        if self.kind == "predict":
            return _copy_result(_fill(result))
        return _fill(result)


# ----------------------------------------------------------------- state
def _state_roots(model):
    roots = [model, getattr(model, "optimizer", None)]
    return [r for r in roots if r is not None] + list(getattr(model, "metrics", []))


_PACKAGE = __name__.split(".")[0]
_TRACE_PACKAGE = Recorder.__module__.rsplit(".", 1)[0]


class _StateSwaps:
    """Every plain engine array reachable from the model, its optimizer and metrics
    (variables, slots, accumulators, scratch), to be viewed as TracedArrays while a step
    is recorded. A replay is valid while each still holds the same array."""

    def __init__(self, roots):
        self.places = []          # (container, key, array)
        seen = set()
        stack = list(roots)
        while stack:
            item = stack.pop()
            if id(item) in seen:
                continue
            seen.add(id(item))
            for container, key, value in _children(item):
                if type(value) is np.ndarray:
                    self.places.append((container, key, value))
                elif _walkable(value):
                    stack.append(value)
        self.arrays = [array for _, _, array in self.places]
        # what intact() reads: an attribute of an object with a __dict__ in that dict
        self.checks = [(container.__dict__, str(key), array)
                       if type(key) is _Attribute and key in getattr(container, "__dict__", ())
                       else (container, key, array) for container, key, array in self.places]

    def swap(self):
        self.views = [array.view(TracedArray) for _, _, array in self.places]
        for (container, key, _), view in zip(self.places, self.views):
            _put(container, key, view)

    def restore(self):
        """Put the arrays back; returns False when the step replaced one (a new array, not
        an update in place: then this recording cannot be replayed)."""
        kept = True
        for (container, key, array), view in zip(self.places, self.views):
            current = _get(container, key)
            if current is view:
                _put(container, key, array)
                continue
            kept = False
            if isinstance(current, TracedArray):
                _put(container, key, current.view(np.ndarray))
        return kept

    def intact(self):
        for container, key, array in self.checks:
            if (getattr(container, key) if type(key) is _Attribute else container[key]) \
                    is not array:
                return False
        return True


def _walkable(value):
    if isinstance(value, (list, dict, tuple)):
        return True
    module = type(value).__module__ or ""
    return (module.split(".")[0] == _PACKAGE and not isinstance(value, type)
            and module != __name__ and not module.startswith(_TRACE_PACKAGE))


def _children(item):
    if isinstance(item, list):
        return [(item, index, value) for index, value in enumerate(item)]
    if isinstance(item, tuple):
        return [(None, None, value) for value in item if type(value) is not np.ndarray]
    if isinstance(item, dict):
        return [(item, key, value) for key, value in list(item.items())]
    out = []
    for name in _slot_names(type(item)):
        if hasattr(item, name):
            out.append((item, _Attribute(name), getattr(item, name)))
    for name, value in list(getattr(item, "__dict__", {}).items()):
        out.append((item, _Attribute(name), value))
    return out


def _slot_names(cls):
    names = []
    for klass in cls.__mro__:
        slots = klass.__dict__.get("__slots__", ())
        names.extend([slots] if isinstance(slots, str) else
                     [s for s in slots if s not in ("__weakref__", "__dict__")])
    return names


class _Attribute(str):
    """A container key that names an attribute."""


def _put(container, key, value):
    if isinstance(key, _Attribute):
        object.__setattr__(container, key, value)
    else:
        container[key] = value


def _get(container, key):
    return getattr(container, key) if isinstance(key, _Attribute) else container[key]


# ----------------------------------------------------------------- data
def _flatten(data):
    """(the NumPy array leaves of ``data``, ``rebuild(leaves)``)."""
    if type(data) is tuple and all(type(v) is np.ndarray or v is None for v in data):
        return list(data), tuple      # (x, y, sample_weight) arrays: the common case
    leaves = []

    def visit(value):
        if isinstance(value, (tuple, list)):
            parts = [visit(v) for v in value]
            kind = type(value)
            return lambda new: kind(p(new) for p in parts)
        if isinstance(value, dict):
            parts = {k: visit(v) for k, v in value.items()}
            return lambda new: {k: p(new) for k, p in parts.items()}
        if isinstance(value, Tensor):
            value = value.data
        if isinstance(value, np.ndarray):
            index = len(leaves)
            leaves.append(value)
            return lambda new: new[index]
        leaves.append(None)
        return lambda new, v=value: v

    rebuild = visit(data)
    return leaves, rebuild


def _map_tensors(result, function):
    """``result`` (Tensors in tuples, lists and dicts) with each Tensor ``t`` replaced by
    ``wrap(function(t.data))``."""
    if isinstance(result, Tensor):
        return wrap(function(result.data))
    if isinstance(result, (tuple, list)):
        return type(result)(_map_tensors(r, function) for r in result)
    if isinstance(result, dict):
        return {k: _map_tensors(v, function) for k, v in result.items()}
    return result


def _plain_result(result):
    """A step's result with its TracedArrays as plain arrays."""
    return _map_tensors(result, lambda a: a.view(np.ndarray) if isinstance(a, TracedArray)
                        else a)


def _copy_result(result):
    return _map_tensors(result, lambda a: a.copy())


def _fill(template):
    """The replay's result: new Tensors around the trace buffers the replay refilled."""
    return _map_tensors(template, lambda a: a)


__all__ = ["CompiledStep", "JitFallbackWarning", "MAX_TRACES"]

""":class:`TracedArray`: the NumPy array subclass a recorded step computes on.

NumPy hands every ufunc (operators, ``sum``/``max`` through their reductions, ``@``) and
every ``numpy`` function given a TracedArray to ``__array_ufunc__`` /
``__array_function__``; the methods that compute in C (``astype``, ``copy``, fancy
``__getitem__``, ``__setitem__``, ``argmax``, ...) are overridden here. Each hands the call
to the active recorder, which runs it on plain arrays and notes it as a trace entry. Reading
a value on the host (``float``, ``bool``, ``item``) marks the step untraceable. With no
recorder active every hook just computes, on plain arrays.
"""

import numpy as np

from . import session

# C-implemented methods that compute a new array (or write in place) without a ufunc.
_COMPUTING_METHODS = ("argmax", "argmin", "argsort", "argpartition", "choose", "compress",
                      "cumprod", "cumsum", "diagonal", "dot", "flatten", "nonzero",
                      "partition", "put", "ravel", "repeat", "reshape", "round",
                      "searchsorted", "sort", "squeeze", "swapaxes", "take", "trace",
                      "transpose")
_IN_PLACE_METHODS = ("fill", "partition", "put", "sort")
_HOST_READS = ("item", "tolist", "tobytes", "__float__", "__int__", "__bool__",
               "__index__", "__complex__")


def _plain(value):
    return value.view(np.ndarray) if isinstance(value, TracedArray) else value


class TracedArray(np.ndarray):
    """An engine array inside a recorded step (a view of a trace buffer)."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        recorder = session.active()
        if recorder is not None:
            return recorder.ufunc(ufunc, method, inputs, kwargs)
        inputs = [_plain(x) for x in inputs]
        if "out" in kwargs:
            kwargs["out"] = tuple(_plain(x) for x in kwargs["out"])
        return getattr(ufunc, method)(*inputs, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        recorder = session.active()
        if recorder is not None:
            return recorder.function(func, args, kwargs)
        return func(*_unwrap(args), **_unwrap(kwargs))

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
        recorder = session.active()
        if recorder is None:
            return _plain(self).astype(dtype, order, casting, copy=copy)
        if not copy and np.dtype(dtype) == self.dtype:
            return self
        return recorder.cast(self, np.dtype(dtype))

    def copy(self, order="C"):
        recorder = session.active()
        if recorder is None:
            return _plain(self).copy(order)
        return recorder.cast(self, self.dtype)

    def __getitem__(self, key):
        recorder = session.active()
        if recorder is None:
            return _plain(self)[recorder_free_key(key)]
        return recorder.getitem(self, key)

    def __setitem__(self, key, value):
        recorder = session.active()
        if recorder is None:
            _plain(self)[recorder_free_key(key)] = _plain(value)
            return
        recorder.setitem(self, key, value)


def _unwrap(value):
    """``value`` with its TracedArrays (also in tuples, lists, dicts) as plain arrays."""
    if isinstance(value, (tuple, list)):
        return type(value)(_unwrap(v) for v in value)
    if isinstance(value, dict):
        return {k: _unwrap(v) for k, v in value.items()}
    return _plain(value)


def recorder_free_key(key):
    """An index with its TracedArrays as plain arrays."""
    if isinstance(key, tuple):
        return tuple(_plain(k) for k in key)
    return _plain(key)


def _computing(name):
    def method(self, *args, **kwargs):
        recorder = session.active()
        if recorder is None:
            return getattr(np.ndarray, name)(_plain(self), *args, **kwargs)
        return recorder.method(name, self, args, kwargs, name in _IN_PLACE_METHODS)

    method.__name__ = name
    return method


def _host_read(name):
    def method(self, *args, **kwargs):
        session.mark_untraceable(f"a host read ({name.strip('_')}() of an array) inside "
                                 "the step")
        return getattr(np.ndarray, name)(_plain(self), *args, **kwargs)

    method.__name__ = name
    return method


for _name in _COMPUTING_METHODS + _IN_PLACE_METHODS:
    setattr(TracedArray, _name, _computing(_name))
for _name in _HOST_READS:
    setattr(TracedArray, _name, _host_read(_name))

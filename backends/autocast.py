"""The autocast scope of mixed precision (Keras' ``AutocastScope``).

While a layer whose dtype policy computes in a lower precision than it stores its
variables runs (``mixed_float16``), ``Layer.__call__`` sets this thread's autocast dtype
to the compute dtype: every op then reads a floating :class:`~lamina.Variable` created
with ``autocast=True`` as a copy in that dtype (see ``lamina.backends.ops.core.data_of``),
and the gradient flowing back to the variable is cast to the variable's dtype by
:func:`~lamina.grad`. The variables themselves stay in their dtype (``float32``).
"""

import contextlib
import threading

from . import state


class _Scope(threading.local):
    """This thread's autocast dtype (None: variables are read in their own dtype)."""

    dtype = None


_scope = _Scope()
_open_scopes = state.OpenScopes()


def autocast_dtype():
    """The dtype autocast variables are read in on this thread, or None."""
    return _scope.dtype if _open_scopes.count else None


@contextlib.contextmanager
def autocast_scope(dtype):
    """Read autocast variables as ``dtype`` (None: as stored) while the block runs."""
    previous = _scope.dtype
    _open_scopes.opened()
    _scope.dtype = dtype
    try:
        yield
    finally:
        _scope.dtype = previous
        _open_scopes.closed()


def read_variable(variable):
    """The array an op computes with for ``variable``: its data, cast to the autocast
    dtype when one is active, the variable autocasts and is floating."""
    data = variable.data
    if not _open_scopes.count:
        return data
    dtype = _scope.dtype
    if dtype is None or data.dtype == dtype or data.dtype.kind != "f" \
            or not variable.autocast:
        return data
    return data.astype(dtype)

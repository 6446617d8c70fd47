"""``name_scope``: the prefix of the paths of the variables created inside it, as Keras 3's
``keras.name_scope`` (``with name_scope("encoder"): Variable(..., name="w")`` has the path
``encoder/w``; a layer built inside gives ``encoder/dense/kernel``).

The open scopes are the calling thread's (Keras keeps them in its thread-local global
state).

Example:
    >>> with name_scope("outer"):
    ...     with name_scope("inner"):
    ...         current_path()
    'outer/inner'
"""

import threading


class _Scopes(threading.local):
    stack = ()


_scopes = _Scopes()


class name_scope:  # noqa: N801  (Keras' public name)
    """Context manager adding ``name`` to the path of the variables created inside.

    Args:
        name: the scope's name (a string without ``/``).
        caller: optional object opening the scope (a layer): with ``deduplicate``, a scope
            opened by the same caller with the same name as the innermost one is not
            entered again.
        deduplicate: see ``caller`` (default True).
        override_parent: an absolute path replacing the enclosing scopes' path.
    """

    def __init__(self, name, caller=None, deduplicate=True, override_parent=None):
        if not isinstance(name, str) or "/" in name:
            raise ValueError("Argument `name` must be a string and cannot contain character "
                             f"`/`. Received: name={name}")
        self.name = name
        self.caller = caller
        self.deduplicate = deduplicate
        self.override_parent = override_parent
        self._pushed = False

    def __enter__(self):
        stack = _scopes.stack
        if self.deduplicate and stack and self.caller is not None:
            innermost = stack[-1]
            if innermost.caller is self.caller and innermost.name == self.name:
                return self
        _scopes.stack = (*stack, self)
        self._pushed = True
        return self

    def __exit__(self, *exc_info):
        if self._pushed:
            _scopes.stack = _scopes.stack[:-1]
            self._pushed = False


def current_path():
    """The path of the open scopes (``"outer/inner"``; ``""`` outside every scope)."""
    parts = []
    for scope in _scopes.stack:
        if scope.override_parent is not None:
            parts = [part for part in scope.override_parent.split("/") if part]
        parts.append(scope.name)
    return "/".join(parts)


def scoped_path(path):
    """``path`` under the open scopes (``path`` itself outside every scope)."""
    prefix = current_path() if _scopes.stack else ""
    return f"{prefix}/{path}" if prefix else path

"""Choosing the engine: ``set_backend``, ``get_backend``, ``use_backend``, ``LAMINA_BACKEND``."""

import contextlib
import importlib.util
import os
import threading

from . import state

_ENGINES = {
    "numpy": (".numpy.engine", "NumpyBackend"),
    "cupy": (".cupy.engine", "CupyBackend"),
}
_instances = {}
_instances_lock = threading.RLock()


def known_backends():
    """Names of every engine lamina ships, usable or not on this machine."""
    return tuple(_ENGINES)


def available_backends():
    """Names of the engines usable here (``"cupy"`` only with CuPy and a CUDA GPU)."""
    names = ["numpy"]
    if importlib.util.find_spec("cupy") is not None:
        try:
            _instance("cupy")
            names.append("cupy")
        except RuntimeError:
            pass
    return tuple(names)


def _instance(name):
    if name not in _ENGINES:
        raise ValueError(
            f"unknown backend {name!r}; lamina's backends are {list(_ENGINES)} "
            f"(available here: {list(available_backends())})"
        )
    with _instances_lock:  # two threads asking first at once get the same instance
        if name not in _instances:
            module_name, class_name = _ENGINES[name]
            module = importlib.import_module(module_name, __package__)
            _instances[name] = getattr(module, class_name)()
        return _instances[name]


def set_backend(name):
    """Make ``name`` (``"numpy"`` or ``"cupy"``) the active engine: for every thread when
    called at top level, for the calling thread only inside :func:`use_backend`.

    Raises ``ValueError`` for an unknown name and ``RuntimeError`` naming what is
    missing (CuPy, or a GPU) for ``"cupy"``; never falls back silently.
    """
    state.set_active_backend(_instance(name))


def get_backend():
    """The active engine instance (its ``name`` attribute says which)."""
    return state.backend()


@contextlib.contextmanager
def use_backend(name):
    """Context manager running its body with engine ``name``, then restoring the previous.

    The engine is scoped to the calling thread: other threads keep theirs meanwhile."""
    with state.scoped(backend=_instance(name)):
        yield state.backend()


def default_backend():
    """The engine named by ``LAMINA_BACKEND`` (default ``"numpy"``)."""
    return _instance(os.environ.get("LAMINA_BACKEND", "numpy").strip().lower() or "numpy")


state.set_default_backend(default_backend)

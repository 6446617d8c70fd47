"""Choosing the engine: ``set_backend``, ``get_backend``, ``use_backend``, ``device``,
``LAMINA_BACKEND``."""

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


_DEVICE_KINDS = {"cpu": "numpy", "gpu": "cupy", "cuda": "cupy"}


def _parse_device(device_name):
    """``(engine name, device index)`` of a Keras device name: ``"cpu"``/``"cpu:0"``,
    ``"gpu"``/``"gpu:N"``/``"cuda:N"`` (case-insensitive; TensorFlow's ``"/device:GPU:0"``
    and ``"/GPU:0"`` forms too)."""
    text = device_name.strip().lower() if isinstance(device_name, str) else None
    if text is not None:
        text = text.lstrip("/")
        text = text[len("device:"):] if text.startswith("device:") else text
        kind, _, index = text.partition(":")
        if kind in _DEVICE_KINDS and (index == "" or index.isdigit()):
            index = int(index or 0)
            if kind != "cpu" or index == 0:
                return _DEVICE_KINDS[kind], index
    raise ValueError(
        "Invalid value for argument `device_name`: lamina's devices are 'cpu' (or "
        "'cpu:0', the NumPy engine) and 'gpu', 'gpu:N' or 'cuda:N' (the CuPy engine on "
        f"GPU N). Received: device_name={device_name!r}")


@contextlib.contextmanager
def device(device_name):
    """Context manager running its body on a device, as ``keras.device``: ``"cpu"`` selects
    the NumPy engine, ``"gpu:N"`` / ``"cuda:N"`` the CuPy engine on GPU ``N`` (default 0),
    for the calling thread; the previous engine (and GPU) come back afterwards.

    Yields the device's name (``"cpu:0"``, ``"gpu:1"``). A name lamina does not know, or a
    GPU index the machine lacks, raises ``ValueError``; a GPU without CuPy or without a GPU
    raises ``RuntimeError`` naming what is missing (as :func:`set_backend`).
    """
    engine_name, index = _parse_device(device_name)
    if engine_name == "numpy":
        with use_backend("numpy"):
            yield "cpu:0"
        return
    with use_backend("cupy") as engine:
        cuda = engine.xp.cuda
        count = cuda.runtime.getDeviceCount()
        if index >= count:
            raise ValueError(f"device {device_name!r}: this machine has {count} GPU(s) "
                             f"(indices 0 to {count - 1})")
        with cuda.Device(index):
            yield f"gpu:{index}"


def default_backend():
    """The engine named by ``LAMINA_BACKEND`` (default ``"numpy"``)."""
    return _instance(os.environ.get("LAMINA_BACKEND", "numpy").strip().lower() or "numpy")


state.set_default_backend(default_backend)

"""Engine state: the active backend, the default float dtype, the seed and the generators.

Every value has a process-wide default (what ``set_backend``, ``set_floatx`` and
``set_random_seed`` change at top level, seen by every thread) and may be *scoped* for one
thread: :func:`scoped` (or :func:`push` / :func:`restore`) sets values that only the calling
thread sees until the scope ends, as ``use_backend``, the scikit-learn wrappers and ``fit``'s
per-epoch generator do. So two threads can run different scopes at once (one fits while
another predicts) without either seeing the other's values.

A setter changes the innermost place holding its value: the calling thread's scope when it
has one open for that value, else the process-wide default.

Kept in one tiny module so that the hot paths read it with one or two attribute lookups.
The engine chosen when none was set comes from :mod:`.context` (``LAMINA_BACKEND``), which
installs its choice with :func:`set_default_backend`: the selection sits above this module
and this module imports nothing of lamina.
"""

import contextlib
import threading

import numpy as np

_UNSET = object()
_KEYS = ("backend", "floatx", "seed", "generator", "epoch_key")

_active = {"backend": None, "floatx": "float32", "seed": None, "epoch_key": None,
           "epsilon": 1e-7, "image_data_format": "channels_last"}
# the process-wide generators, one per engine name, so that switching engines keeps each
# engine's stream where it left off
_generators_by_engine = {}
_lock = threading.RLock()


class _Overlay(threading.local):
    """The calling thread's scoped values; ``_UNSET`` means "the process-wide one".

    ``generators`` is the per-engine generator table of a scoped seed (``_UNSET`` while the
    seed is not scoped); ``generator`` is an explicitly set generator (``fit``'s epoch one).
    """

    backend = _UNSET
    floatx = _UNSET
    seed = _UNSET
    generators = _UNSET
    generator = _UNSET
    epoch_key = _UNSET


_overlay = _Overlay()


class OpenScopes:
    """How many scopes of one kind are open now, over all threads (``count``): while none
    is, a hot path reads the process-wide value instead of its slower thread-local one
    (the backend scopes here, ``no_grad``, autocast)."""

    __slots__ = ("count", "_lock")

    def __init__(self):
        self.count = 0
        self._lock = threading.Lock()

    def opened(self):
        with self._lock:
            self.count += 1

    def closed(self):
        with self._lock:
            self.count -= 1


_backend_scopes = OpenScopes()


def push(**values):
    """Scope ``values`` (keys among ``backend``, ``floatx``, ``seed``, ``generator``,
    ``epoch_key``) to the calling thread; returns the token :func:`restore` takes back.

    A scoped ``seed`` starts fresh generators for this thread (derived from that seed)."""
    unknown = sorted(set(values) - set(_KEYS))
    if unknown:
        raise ValueError(f"state.push: unknown keys {unknown}; expected some of {list(_KEYS)}")
    if "floatx" in values:
        values["floatx"] = _checked_floatx(values["floatx"])
    if "seed" in values:  # fresh generators from the scoped seed, none inherited
        values = {"generator": _UNSET, **values, "generators": {}}
    return adopt(values)


def restore(token):
    """Undo the :func:`push` that returned ``token`` (scopes nest: restore in reverse)."""
    for name, value in token.items():
        setattr(_overlay, name, value)
    if "backend" in token:
        _backend_scopes.closed()


def thread_values():
    """The calling thread's scoped values (engine, dtype, seed, generator, epoch key), for
    :func:`adopt` on a thread that runs part of this one's work (a step's replica)."""
    return {name: getattr(_overlay, name) for name in _KEYS + ("generators",)
            if getattr(_overlay, name) is not _UNSET}


def adopt(values):
    """Scope ``values`` -- another thread's :func:`thread_values`, or :func:`push`'s
    checked ones -- to the calling thread; returns the token :func:`restore` takes
    back."""
    token = {name: getattr(_overlay, name) for name in values}
    if "backend" in values:
        _backend_scopes.opened()
    for name, value in values.items():
        setattr(_overlay, name, value)
    return token


@contextlib.contextmanager
def scoped(**values):
    """Context manager running its body with ``values`` scoped to this thread (see
    :func:`push`); the thread's previous values come back afterwards, also on error."""
    token = push(**values)
    try:
        yield
    finally:
        restore(token)


def backend():
    """The active :class:`~lamina.backends.interface.Backend` instance (this thread's scoped
    one, else the process-wide one)."""
    current = _overlay.backend if _backend_scopes.count else _UNSET
    if current is _UNSET:
        current = _active["backend"]
        if current is None:
            with _lock:
                current = _active["backend"]
                if current is None:
                    current = _active["backend"] = _default_backend()
    return current


def _no_default_backend():
    raise RuntimeError("no engine selection is installed: import lamina.backends, whose "
                       "context module chooses the default engine")


_default_backend = _no_default_backend


def set_default_backend(choose):
    """Install ``choose()``, which returns the engine to use when none was set (called once,
    on the first :func:`backend` call). ``context.py`` installs its selection here, so this
    module never imports the module that selects engines."""
    global _default_backend
    _default_backend = choose


def set_active_backend(instance):
    """Make ``instance`` the active engine (in this thread's scope when one is open)."""
    if _overlay.backend is not _UNSET:
        _overlay.backend = instance
    else:
        _active["backend"] = instance


def floatx():
    """The default float dtype name, ``"float32"`` unless changed with ``set_floatx``."""
    current = _overlay.floatx
    return _active["floatx"] if current is _UNSET else current


def _checked_floatx(dtype):
    allowed = ("float16", "float32", "float64")
    try:
        name = np.dtype(dtype).name
    except TypeError:
        name = None
    if name not in allowed:
        raise ValueError(f"floatx must be one of {allowed}, got {dtype!r}")
    return name


def set_floatx(dtype):
    """Set the default float dtype: ``"float16"``, ``"float32"`` or ``"float64"``."""
    name = _checked_floatx(dtype)
    if _overlay.floatx is not _UNSET:
        _overlay.floatx = name
    else:
        _active["floatx"] = name


def seed():
    """The seed given to ``set_random_seed`` (``None`` when never set)."""
    current = _overlay.seed
    return _active["seed"] if current is _UNSET else current


def seed_or_random():
    """The set seed, or one drawn once per process from entropy when none was set."""
    current = seed()
    if current is None:
        if "entropy_seed" not in _active:
            _active.setdefault("entropy_seed",
                               int(np.random.SeedSequence().entropy % (2**63)))
        return _active["entropy_seed"]
    return current


def set_seed(value):
    """Set the seed and start every engine's generator afresh from it."""
    if _overlay.seed is not _UNSET:
        _overlay.seed = value
        _overlay.generators = {}
    else:
        with _lock:
            _active["seed"] = value
            _generators_by_engine.clear()


def set_generator(generator_state):
    """Replace the generator of the active engine (the training loop sets one derived
    from the epoch, in a scope of its own)."""
    if _overlay.generator is not _UNSET:
        _overlay.generator = generator_state
    else:
        _generator_table()[backend().name] = generator_state


def _generator_table():
    table = _overlay.generators
    return _generators_by_engine if table is _UNSET else table


def generator():
    """The engine's random generator: the one set in this thread's scope, else the
    active engine's, created from the seed on first use."""
    current = _overlay.generator
    if current is not _UNSET and current is not None:
        return current
    engine = backend()
    table = _generator_table()
    current = table.get(engine.name)
    if current is None:
        with _lock:
            current = table.get(engine.name)
            if current is None:
                current = table[engine.name] = engine.make_generator(seed())
    return current


def epoch_key():
    """The (epoch, step count) of the training epoch running now, or None outside fit."""
    current = _overlay.epoch_key
    return _active["epoch_key"] if current is _UNSET else current


def set_epoch_key(key):
    """Announce the training epoch running now (in this thread's scope when one is open)."""
    if _overlay.epoch_key is not _UNSET:
        _overlay.epoch_key = key
    else:
        _active["epoch_key"] = key


def epsilon():
    """The fuzz factor of numeric expressions (Keras' ``backend.epsilon()``, default 1e-7):
    the clipping of probabilities in the cross-entropies, the denominators of losses,
    metrics and constraints."""
    return _active["epsilon"]


def set_epsilon(value):
    """Set the fuzz factor :func:`epsilon` returns (process-wide)."""
    _active["epsilon"] = float(value)


_DATA_FORMATS = ("channels_first", "channels_last")


def image_data_format():
    """The layout a layer's ``data_format=None`` means: ``"channels_last"`` (the default)
    or ``"channels_first"``, as Keras' ``backend.image_data_format()``."""
    return _active["image_data_format"]


def standardize_data_format(data_format):
    """``data_format`` lowered and checked; ``None`` is :func:`image_data_format`."""
    if data_format is None:
        return image_data_format()
    name = str(data_format).lower()
    if name not in _DATA_FORMATS:
        raise ValueError("The `data_format` argument must be one of {'channels_first', "
                         f"'channels_last'}}. Received: data_format={data_format}")
    return name


def set_image_data_format(data_format):
    """Set the layout :func:`image_data_format` returns (process-wide): layers made
    afterwards with ``data_format=None`` take it."""
    _active["image_data_format"] = standardize_data_format(str(data_format))

"""Process-wide engine state: the active backend, the default float dtype and the seed.

Kept in one tiny module so that the hot paths read it with one attribute lookup.
"""

import numpy as np

_active = {"backend": None, "floatx": "float32", "seed": None, "generator": None,
           "epoch_key": None}


def backend():
    """The active :class:`~lamina.backends.interface.Backend` instance."""
    current = _active["backend"]
    if current is None:
        from . import context as selection

        current = selection.default_backend()
        _active["backend"] = current
    return current


_generators_by_engine = {}


def set_active_backend(instance):
    """Switch engines, keeping each engine's random generator where it left off."""
    previous = _active["backend"]
    if previous is not None:
        _generators_by_engine[previous.name] = _active["generator"]
    _active["backend"] = instance
    _active["generator"] = _generators_by_engine.get(instance.name)


def floatx():
    """The default float dtype name, ``"float32"`` unless changed with ``set_floatx``."""
    return _active["floatx"]


def set_floatx(dtype):
    """Set the default float dtype: ``"float16"``, ``"float32"`` or ``"float64"``."""
    allowed = ("float16", "float32", "float64")
    try:
        name = np.dtype(dtype).name
    except TypeError:
        name = None
    if name not in allowed:
        raise ValueError(f"floatx must be one of {allowed}, got {dtype!r}")
    _active["floatx"] = name


def seed():
    """The seed given to ``set_random_seed`` (``None`` when never set)."""
    return _active["seed"]


def seed_or_random():
    """The set seed, or one drawn once per process from entropy when none was set."""
    if _active["seed"] is None:
        if _active.get("entropy_seed") is None:
            _active["entropy_seed"] = int(np.random.SeedSequence().entropy % (2**63))
        return _active["entropy_seed"]
    return _active["seed"]


def set_seed(value):
    _active["seed"] = value
    _active["generator"] = None
    _generators_by_engine.clear()


def set_generator(generator_state):
    """Replace the global generator (the training loop sets one derived from the epoch)."""
    _active["generator"] = generator_state


def generator():
    """The engine's global random generator (created from the seed on first use)."""
    current = _active["generator"]
    if current is None:
        current = backend().make_generator(_active["seed"])
        _active["generator"] = current
    return current


def epoch_key():
    """The (epoch, step count) of the training epoch running now, or None outside fit."""
    return _active["epoch_key"]


def set_epoch_key(key):
    _active["epoch_key"] = key

"""Seeding: one call makes every engine's random draws reproducible."""

import random

import numpy as np

from . import state


def set_random_seed(seed):
    """Seed Python's ``random``, NumPy's global generator and lamina's engine generator.

    The same seed, data and code then give bit-identical weights after training on the
    NumPy engine.
    """
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"set_random_seed expects a non-negative int, got {seed!r}")
    random.seed(int(seed))
    np.random.seed(int(seed) % 2**32)
    state.set_seed(int(seed))


def derived_generator(*keys):
    """A fresh generator from the global seed and ``keys`` (for example ``(epoch,)``), so
    that a draw depends only on (seed, keys), never on how many draws came before."""
    base = state.seed_or_random()
    mixed = np.random.SeedSequence([base, *[int(k) for k in keys]]).generate_state(1, np.uint64)
    return state.backend().make_generator(int(mixed[0]))

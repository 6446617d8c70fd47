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
    return derived_generator_from(state.seed_or_random(), *keys)


class SeededStream:
    """The random numbers of a layer given its own ``seed`` (Dropout, GaussianNoise, ...).

    Without a seed it is the global stream. With one, the generator derives from the seed
    and the training epoch that ``fit`` announces, so a fit resumed from a checkpoint draws
    the same masks as an uninterrupted one.
    """

    def __init__(self, seed):
        self.seed = seed
        self._key = None
        self._generator = None

    def generator(self):
        """The generator to draw from now."""
        if self.seed is None:
            return state.generator()
        key = state.epoch_key()
        if self._generator is None or key != self._key:
            self._key = key
            self._generator = derived_generator_from(self.seed, *(key or ()))
        return self._generator


def derived_generator_from(seed, *keys):
    """A fresh engine generator from an explicit ``seed`` and integer ``keys``."""
    mixed = np.random.SeedSequence([int(seed), *[int(k) for k in keys]]).generate_state(
        1, np.uint64)
    return state.backend().make_generator(int(mixed[0]))

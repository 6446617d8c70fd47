"""``lamina.random``: random draws (normal, uniform, truncated normal, integers, dropout,
shuffling, categorical, gamma, beta, binomial) and ``SeedGenerator``, as ``keras.random``.

``seed=`` is an int (the same draws on every call), a ``SeedGenerator`` (a new,
reproducible draw per call) or None (the global stream, which
``lamina.utils.set_random_seed`` reseeds)."""

from lamina.backends.random import (SeedGenerator, beta, binomial, categorical,  # noqa: F401
                                    dropout, gamma, normal, randint, shuffle,
                                    truncated_normal, uniform)

__all__ = ["SeedGenerator", "beta", "binomial", "categorical", "dropout", "gamma", "normal",
           "randint", "shuffle", "truncated_normal", "uniform"]

"""Seeding (one call makes every engine's random draws reproducible) and ``lamina.random``:
the distributions of ``keras.random`` and Keras 3's ``SeedGenerator``, drawn from the
engine's generators."""

import random

import numpy as np

from . import state
from .autodiff import Tensor, Variable, wrap
from .ops.core import data_of
from .ops.nn import dropout as dropout_op
from .ops.shape import take


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


# ------------------------------------------------------------------ lamina.random
class SeedGenerator:
    """The state of a random stream, as Keras 3's ``keras.random.SeedGenerator``.

    ``state`` is a non-trainable int64 Variable ``[seed, counter]``; every ``next()``
    returns the current state and advances the counter, so passing the generator as
    ``seed=`` to the ``lamina.random`` functions gives a new, reproducible draw each call.
    Without a ``seed`` the initial seed comes from Python's ``random`` (which
    ``set_random_seed`` seeds), as in Keras.

    Example:
        >>> gen = lamina.random.SeedGenerator(seed=42)
        >>> a = lamina.random.normal((2, 3), seed=gen)
        >>> b = lamina.random.normal((2, 3), seed=gen)   # different from a, reproducible
    """

    def __init__(self, seed=None, name=None, **kwargs):
        kwargs.pop("backend", None)            # Keras' custom-backend hook: one backend here
        if kwargs:
            raise ValueError(f"SeedGenerator: unrecognized keyword arguments {sorted(kwargs)}")
        self.name = name or "seed_generator"
        self._initial_seed = seed
        if seed is None:
            seed = random.randint(1, int(1e9))
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
            raise ValueError(f"SeedGenerator: seed must be an integer, got {seed!r}")
        self.state = Variable(np.array([int(seed), 0], dtype="int64"), trainable=False,
                              name="seed_generator_state")

    def next(self, ordered=True):
        """The current ``[seed, counter]`` (a new Tensor); advances the state (the counter
        by one, or Keras' unordered scramble when ``ordered=False``)."""
        current = self.state.numpy().copy()
        following = current + np.array([0, 1]) if ordered else (current + 1) * 5387 % 933199
        self.state.assign(following)
        return Tensor(current)

    def get_config(self):
        """``{"seed", "name"}``: the constructor arguments."""
        return {"seed": self._initial_seed, "name": self.name}

    @classmethod
    def from_config(cls, config):
        """A SeedGenerator from :meth:`get_config`'s dict."""
        return cls(**config)


def draw_generator(seed):
    """The engine generator for one draw of a ``lamina.random`` function: from a
    :class:`SeedGenerator` (its next state), from an int (the same draws every call, as
    Keras' stateless int seeds), or the global stream for ``None``."""
    if isinstance(seed, SeedGenerator):
        base, counter = (int(v) for v in seed.next().numpy())
        return derived_generator_from(base % 2**63, counter % 2**63)
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        return derived_generator_from(int(seed) % 2**63, 0)
    if seed is None:
        return state.generator()
    raise ValueError(f"seed must be an int, a SeedGenerator or None, got {seed!r} "
                     f"({type(seed).__name__})")


def _float_dtype(name, dtype):
    dtype = np.dtype(dtype or state.floatx())
    if dtype.kind != "f":
        raise ValueError(f"random.{name} draws floats; got dtype={dtype.name!r}"
                         + (" (use random.randint for integers)" if name == "uniform" else ""))
    return dtype.name


def _shape(shape):
    return (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)


def _tensor(array):
    return wrap(array)


def normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Draws from the normal distribution N(mean, stddev ** 2)."""
    dtype = _float_dtype("normal", dtype)
    return _tensor(state.backend().random_normal(draw_generator(seed), _shape(shape), dtype,
                                                 mean, stddev))


def uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    """Draws from the uniform distribution on ``[minval, maxval)`` (float dtypes)."""
    dtype = _float_dtype("uniform", dtype)
    return _tensor(state.backend().random_uniform(draw_generator(seed), _shape(shape), dtype,
                                                  minval, maxval))


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    """Draws from N(mean, stddev ** 2) restricted to within two standard deviations
    (values beyond are redrawn)."""
    dtype = _float_dtype("truncated_normal", dtype)
    backend, generator, shape = state.backend(), draw_generator(seed), _shape(shape)
    values = backend.random_normal(generator, shape, dtype).reshape(-1)
    outside = backend.xp.flatnonzero(backend.xp.abs(values) > 2)
    while outside.size:
        values[outside] = backend.random_normal(generator, (outside.size,), dtype)
        outside = outside[backend.xp.abs(values[outside]) > 2]
    return _tensor((values * stddev + mean).astype(dtype, copy=False).reshape(shape))


def randint(shape, minval, maxval, dtype="int32", seed=None):
    """Integers drawn uniformly from ``[minval, maxval)``."""
    if np.dtype(dtype).kind not in "iu":
        raise ValueError(f"random.randint draws integers; got dtype={dtype!r}")
    if int(maxval) <= int(minval):
        raise ValueError(f"random.randint needs minval < maxval, got {minval} and {maxval}")
    backend = state.backend()
    fraction = backend.random_uniform(draw_generator(seed), _shape(shape), "float64")
    span = int(maxval) - int(minval)
    values = backend.xp.minimum(backend.xp.floor(fraction * span), span - 1) + int(minval)
    return _tensor(values.astype(dtype))


def dropout(inputs, rate, noise_shape=None, seed=None):
    """Inverted dropout of ``inputs`` (zero with probability ``rate``, scale the rest by
    ``1 / (1 - rate)``), differentiable; ``noise_shape`` (None entries: the input's size)
    shares one mask along the axes of size 1."""
    return dropout_op(inputs, rate, generator=draw_generator(seed), noise_shape=noise_shape)


def shuffle(x, axis=0, seed=None):
    """``x`` with its slices along ``axis`` in a random order (differentiable)."""
    length = data_of(x).shape[axis]
    order = state.backend().permutation(draw_generator(seed), length)
    return take(x, order, axis=axis)


def categorical(logits, num_samples, dtype="int32", seed=None):
    """``num_samples`` class indices per row of ``logits`` (batch, classes), drawn from
    ``softmax(logits)`` (Gumbel-max)."""
    z = data_of(logits)
    if getattr(z, "ndim", 0) != 2:
        raise ValueError(f"random.categorical expects logits of shape (batch, classes), got "
                         f"{tuple(getattr(z, 'shape', ()))}")
    backend = state.backend()
    shape = (z.shape[0], int(num_samples), z.shape[1])
    tiny = np.finfo("float64").tiny
    noise = backend.random_uniform(draw_generator(seed), shape, "float64", tiny, 1.0)
    scores = z[:, None, :].astype("float64") - backend.xp.log(-backend.xp.log(noise))
    return _tensor(scores.argmax(axis=-1).astype(dtype))


def _gamma_draws(generator, alpha):
    """Gamma(alpha, 1) draws for an array of shapes ``alpha`` (float64), by Marsaglia and
    Tsang's method (boosted by ``u ** (1 / alpha)`` for alpha < 1)."""
    backend = state.backend()
    xp = backend.xp
    flat = alpha.reshape(-1)
    boosted = flat < 1
    shape_param = xp.where(boosted, flat + 1, flat)
    d = shape_param - 1.0 / 3.0
    c = 1.0 / xp.sqrt(9.0 * d)
    out = xp.empty_like(flat)
    pending = xp.arange(flat.size)
    while pending.size:
        x = backend.random_normal(generator, (pending.size,), "float64")
        u = backend.random_uniform(generator, (pending.size,), "float64")
        v = (1 + c[pending] * x) ** 3
        positive = v > 0
        log_v = xp.log(xp.where(positive, v, 1))
        dp = d[pending]
        accept = positive & (xp.log(u) < 0.5 * x * x + dp - dp * v + dp * log_v)
        out[pending[accept]] = (dp * v)[accept]
        pending = pending[~accept]
    if bool(boosted.any()):
        u = backend.random_uniform(generator, flat.shape, "float64", np.finfo("float64").tiny)
        out = xp.where(boosted, out * u ** (1.0 / xp.where(boosted, flat, 1)), out)
    return out.reshape(alpha.shape)


def _broadcast_parameter(value, shape):
    xp = state.backend().xp
    return xp.broadcast_to(xp.asarray(data_of(value), dtype="float64"), shape)


def gamma(shape, alpha, dtype=None, seed=None):
    """Draws from the Gamma distribution with shape ``alpha`` (scale 1)."""
    dtype = _float_dtype("gamma", dtype)
    shape = _shape(shape)
    draws = _gamma_draws(draw_generator(seed), _broadcast_parameter(alpha, shape))
    return _tensor(draws.astype(dtype))


def beta(shape, alpha, beta, dtype=None, seed=None):
    """Draws from the Beta(alpha, beta) distribution (as ``X / (X + Y)`` of two Gamma
    draws)."""
    dtype = _float_dtype("beta", dtype)
    shape = _shape(shape)
    generator = draw_generator(seed)
    first = _gamma_draws(generator, _broadcast_parameter(alpha, shape))
    second = _gamma_draws(generator, _broadcast_parameter(beta, shape))
    return _tensor((first / (first + second)).astype(dtype))


def binomial(shape, counts, probabilities, dtype=None, seed=None):
    """Draws from the Binomial(counts, probabilities) distribution (the number of
    successes in ``counts`` trials; memory grows with the largest count)."""
    dtype = _float_dtype("binomial", dtype)
    shape = _shape(shape)
    backend = state.backend()
    n = _broadcast_parameter(counts, shape)
    p = _broadcast_parameter(probabilities, shape)
    trials = int(n.max()) if n.size else 0
    draws = backend.random_uniform(draw_generator(seed), (trials,) + shape, "float64")
    steps = backend.xp.arange(trials).reshape((trials,) + (1,) * len(shape))
    successes = ((draws < p) & (steps < n)).sum(axis=0)
    return _tensor(successes.astype(dtype))


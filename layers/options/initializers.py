"""Weight initializers with Keras' names, arguments and defaults."""

import math

import numpy as np

from ...backends import state
from ...backends.autodiff import Tensor
from ...backends.registry import Registry
from ..configurable import Configurable
from ..configurable import deserialize as _deserialize
from ..configurable import serialize as _serialize

INITIALIZERS = Registry("initializer")


def compute_fans(shape, input_axes=None, output_axes=None):
    """Keras' (fan_in, fan_out): the products of ``input_axes`` and ``output_axes`` when
    both are given; else for kernels (*receptive, in, out) the receptive field multiplies
    both."""
    shape = tuple(shape)
    if input_axes is not None and output_axes is not None:
        return (int(np.prod([shape[a] for a in input_axes])),
                int(np.prod([shape[a] for a in output_axes])))
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    receptive = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    return shape[-2] * receptive, shape[-1] * receptive


class Initializer(Configurable):
    """Base class: ``initializer(shape, dtype)`` returns a Tensor, as Keras' initializers
    return backend tensors (so ``float(init(shape=(1, 1)))`` and ``np.asarray`` work).
    The built-in ones implement ``values(shape, dtype)``, the engine array; a custom
    subclass overrides ``__call__`` as in Keras."""

    def __call__(self, shape, dtype=None):
        return Tensor(self.values(shape, dtype))

    def values(self, shape, dtype=None):
        """The initial values as an engine array of ``shape`` and ``dtype``."""
        raise NotImplementedError


class _Seeded(Initializer):
    """Initializers drawing random numbers; ``seed`` fixes the draw, else the global seed."""

    def __init__(self, seed=None):
        self.seed = seed

    def _generator(self):
        if self.seed is None:
            return state.generator()
        return state.backend().make_generator(self.seed)

    def get_config(self):
        return {"seed": self.seed}


@INITIALIZERS.register("zeros")
class Zeros(Initializer):
    """All zeros."""

    def values(self, shape, dtype=None):
        return state.backend().xp.zeros(tuple(shape), dtype=dtype or state.floatx())


@INITIALIZERS.register("ones")
class Ones(Initializer):
    """All ones."""

    def values(self, shape, dtype=None):
        return state.backend().xp.ones(tuple(shape), dtype=dtype or state.floatx())


@INITIALIZERS.register("constant")
class Constant(Initializer):
    """Every element equal to ``value``."""

    def __init__(self, value=0.0):
        self.value = value

    def values(self, shape, dtype=None):
        return state.backend().xp.full(tuple(shape), self.value, dtype=dtype or state.floatx())

    def get_config(self):
        return {"value": self.value}


@INITIALIZERS.register("random_normal", "normal")
class RandomNormal(_Seeded):
    """Normal draws with ``mean`` and ``stddev``."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        super().__init__(seed)
        self.mean, self.stddev = mean, stddev

    def values(self, shape, dtype=None):
        return state.backend().random_normal(self._generator(), shape, dtype or state.floatx(),
                                             self.mean, self.stddev)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


@INITIALIZERS.register("random_uniform", "uniform")
class RandomUniform(_Seeded):
    """Uniform draws from ``[minval, maxval)``."""

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        super().__init__(seed)
        self.minval, self.maxval = minval, maxval

    def values(self, shape, dtype=None):
        return state.backend().random_uniform(self._generator(), shape,
                                              dtype or state.floatx(), self.minval, self.maxval)

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}


def _truncated_normal(generator, shape, dtype, mean, stddev):
    backend = state.backend()
    values = backend.random_normal(generator, shape, dtype)
    outside = backend.xp.abs(values) > 2.0
    while bool(outside.any()):
        values[outside] = backend.random_normal(generator, (int(outside.sum()),), dtype)
        outside = backend.xp.abs(values) > 2.0
    values *= stddev
    values += mean
    return values


@INITIALIZERS.register("truncated_normal")
class TruncatedNormal(_Seeded):
    """Normal draws re-drawn when more than two standard deviations from the mean."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        super().__init__(seed)
        self.mean, self.stddev = mean, stddev

    def values(self, shape, dtype=None):
        return _truncated_normal(self._generator(), shape, dtype or state.floatx(),
                                 self.mean, self.stddev)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


@INITIALIZERS.register("variance_scaling")
class VarianceScaling(_Seeded):
    """Keras' VarianceScaling: scale / fan (``mode``) as variance, with ``distribution``
    ``"truncated_normal"`` (alias ``"normal"``), ``"untruncated_normal"`` or ``"uniform"``;
    ``input_axes``/``output_axes`` name the axes whose sizes make the fans."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None,
                 input_axes=None, output_axes=None):
        super().__init__(seed)
        if scale <= 0.0:
            raise ValueError(f"VarianceScaling: `scale` must be positive, got {scale}")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"mode must be fan_in, fan_out or fan_avg, got {mode!r}")
        distribution = distribution.lower()
        if distribution == "normal":
            distribution = "truncated_normal"
        if distribution not in ("truncated_normal", "untruncated_normal", "uniform"):
            raise ValueError(f"unknown distribution {distribution!r}")
        self.scale, self.mode, self.distribution = scale, mode, distribution
        self.input_axes, self.output_axes = input_axes, output_axes

    def values(self, shape, dtype=None):
        dtype = dtype or state.floatx()
        fan_in, fan_out = compute_fans(shape, self.input_axes, self.output_axes)
        fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        variance = self.scale / max(1.0, fan)
        backend = state.backend()
        if self.distribution == "uniform":
            limit = math.sqrt(3.0 * variance)
            return backend.random_uniform(self._generator(), shape, dtype, -limit, limit)
        if self.distribution == "untruncated_normal":
            return backend.random_normal(self._generator(), shape, dtype, 0.0, math.sqrt(variance))
        stddev = math.sqrt(variance) / 0.87962566103423978
        return _truncated_normal(self._generator(), shape, dtype, 0.0, stddev)

    def get_config(self):
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution,
                "seed": self.seed, **self._axes_config()}

    def _axes_config(self):
        """``input_axes``/``output_axes`` when set: Keras 3.15 writes them (as None too) and
        reads configs without them, so leaving the unset ones out keeps lamina's files as
        Keras already accepted them."""
        return {key: value for key, value in (("input_axes", self.input_axes),
                                              ("output_axes", self.output_axes))
                if value is not None}


def _variance_scaling_preset(class_name, alias, scale, mode, distribution, doc):
    def __init__(self, seed=None, input_axes=None, output_axes=None):
        VarianceScaling.__init__(self, scale, mode, distribution, seed, input_axes,
                                 output_axes)

    def get_config(self):
        return {"seed": self.seed, **self._axes_config()}

    cls = type(class_name, (VarianceScaling,),
               {"__init__": __init__, "get_config": get_config, "__doc__": doc,
                "__module__": __name__})
    INITIALIZERS.register(alias)(cls)
    return cls


GlorotUniform = _variance_scaling_preset("GlorotUniform", "glorot_uniform", 1.0, "fan_avg",
                                         "uniform", "Uniform in ±sqrt(6 / (fan_in + fan_out)).")
GlorotNormal = _variance_scaling_preset("GlorotNormal", "glorot_normal", 1.0, "fan_avg",
                                        "truncated_normal", "Truncated normal, var 2/(in+out).")
HeNormal = _variance_scaling_preset("HeNormal", "he_normal", 2.0, "fan_in",
                                    "truncated_normal", "Truncated normal, variance 2/fan_in.")
HeUniform = _variance_scaling_preset("HeUniform", "he_uniform", 2.0, "fan_in", "uniform",
                                     "Uniform in ±sqrt(6 / fan_in).")
LecunNormal = _variance_scaling_preset("LecunNormal", "lecun_normal", 1.0, "fan_in",
                                       "truncated_normal", "Truncated normal, var 1/fan_in.")
LecunUniform = _variance_scaling_preset("LecunUniform", "lecun_uniform", 1.0, "fan_in",
                                        "uniform", "Uniform in ±sqrt(3 / fan_in).")


@INITIALIZERS.register("orthogonal")
class Orthogonal(_Seeded):
    """A (semi-)orthogonal matrix times ``gain`` (QR of a normal draw, as Keras)."""

    def __init__(self, gain=1.0, seed=None):
        super().__init__(seed)
        self.gain = gain

    def values(self, shape, dtype=None):
        dtype = dtype or state.floatx()
        backend = state.backend()
        rows = int(np.prod(shape[:-1])) if len(shape) > 1 else 1
        cols = shape[-1]
        flat = (max(rows, cols), min(rows, cols))
        draw = backend.to_numpy(backend.random_normal(self._generator(), flat, "float64"))
        q, r = np.linalg.qr(draw)
        q *= np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        # C order: an F-ordered kernel sends matmul(..., out=) down a much slower path.
        return backend.asarray(np.ascontiguousarray((self.gain * q).reshape(shape)), dtype)

    def get_config(self):
        return {"gain": self.gain, "seed": self.seed}


@INITIALIZERS.register("identity")
class Identity(Initializer):
    """``gain`` times the identity matrix (2-D shapes only; rectangular allowed)."""

    def __init__(self, gain=1.0):
        self.gain = gain

    def values(self, shape, dtype=None):
        if len(shape) != 2:
            raise ValueError(f"Identity initializer can only be used for 2D matrices, got "
                             f"shape={tuple(shape)} of rank {len(shape)}")
        eye = state.backend().xp.eye(*shape, dtype=dtype or state.floatx())
        eye *= self.gain
        return eye

    def get_config(self):
        return {"gain": self.gain}


# Keras' other public spellings: the lower-case names are the classes themselves.
IdentityInitializer, OrthogonalInitializer = Identity, Orthogonal
constant, glorot_normal, glorot_uniform, he_normal, he_uniform = (
    Constant, GlorotNormal, GlorotUniform, HeNormal, HeUniform)
identity, lecun_normal, lecun_uniform, ones, orthogonal = (
    Identity, LecunNormal, LecunUniform, Ones, Orthogonal)
random_normal, random_uniform, truncated_normal, variance_scaling, zeros = (
    RandomNormal, RandomUniform, TruncatedNormal, VarianceScaling, Zeros)
for _alias in ("IdentityInitializer", "OrthogonalInitializer"):
    INITIALIZERS.add(_alias, globals()[_alias])


def get(identifier):
    """Resolve a Keras name, a ``{"class_name", "config"}`` dict or an instance."""
    return INITIALIZERS.resolve(identifier, Initializer,
                                "a name, a config dict or an Initializer")


def serialize(initializer):
    """``{"class_name", "config"}`` of an initializer (Keras' schema)."""
    return _serialize(initializer)


def deserialize(config, custom_objects=None):
    """An initializer from a name or a ``{"class_name", "config"}`` dict (Keras 2 or 3);
    ``custom_objects`` maps custom class names to classes."""
    return _deserialize(INITIALIZERS, config, custom_objects)


__all__ = [
    "Constant", "GlorotNormal", "GlorotUniform", "HeNormal", "HeUniform", "INITIALIZERS",
    "Identity", "IdentityInitializer", "Initializer", "LecunNormal", "LecunUniform", "Ones",
    "Orthogonal", "OrthogonalInitializer", "RandomNormal", "RandomUniform",
    "TruncatedNormal", "VarianceScaling", "Zeros", "compute_fans", "constant",
    "deserialize", "get", "glorot_normal", "glorot_uniform", "he_normal", "he_uniform",
    "identity", "lecun_normal", "lecun_uniform", "ones", "orthogonal", "random_normal",
    "random_uniform", "serialize", "truncated_normal", "variance_scaling", "zeros",
]

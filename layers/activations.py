"""Activation functions by their Keras string names (``"relu"``, ``"softmax"``, ...)."""

from ..backends import ops
from ..backends.registry import Registry

ACTIVATIONS = Registry("activation")


def linear(x):
    """Identity."""
    return x


def exponential(x):
    """``exp(x)``."""
    return ops.exp(x)


def hard_sigmoid(x):
    """Piecewise-linear sigmoid ``clip(x / 6 + 0.5, 0, 1)`` (Keras 3)."""
    return ops.clip(x * (1.0 / 6.0) + 0.5, 0.0, 1.0)


def softsign(x):
    """``x / (1 + |x|)``."""
    return x / (ops.abs(x) + 1.0)


def softmax(x, axis=-1):
    """Softmax over the last axis."""
    return ops.softmax(x, axis=axis)


def leaky_relu(x, negative_slope=0.2):
    """Leaky ReLU with Keras' default slope 0.2."""
    return ops.leaky_relu(x, negative_slope)


for _name, _fn in {
    "linear": linear, "relu": ops.relu, "relu6": ops.relu6, "sigmoid": ops.sigmoid,
    "tanh": ops.tanh, "softmax": softmax, "log_softmax": ops.log_softmax, "elu": ops.elu,
    "selu": ops.selu, "gelu": ops.gelu, "silu": ops.silu, "swish": ops.silu,
    "softplus": ops.softplus, "leaky_relu": leaky_relu, "exponential": exponential,
    "hard_sigmoid": hard_sigmoid, "softsign": softsign,
}.items():
    ACTIVATIONS.add(_name, _fn)


def get(identifier):
    """Resolve ``None`` (linear), a Keras name or a callable to an activation function.

    Raises ``ValueError`` listing the known names for an unknown string.
    """
    if identifier is None:
        return linear
    if isinstance(identifier, str):
        return ACTIVATIONS.lookup(identifier)
    if callable(identifier):
        return identifier
    raise TypeError(f"activation must be a name or a callable, got {identifier!r}")


def serialize(activation):
    """The Keras name of an activation function (its ``__name__`` for custom callables)."""
    for name in ACTIVATIONS.names():
        if ACTIVATIONS.lookup(name) is activation:
            return name
    return getattr(activation, "__name__", str(activation))

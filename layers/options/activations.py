"""Activation functions by their Keras string names (``"relu"``, ``"softmax"``, ...)."""

from ...backends import ops
from ...backends.registry import Registry

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


relu, relu6, sigmoid, tanh, log_softmax = ops.relu, ops.relu6, ops.sigmoid, ops.tanh, \
    ops.log_softmax
elu, selu, gelu, silu, swish, softplus = ops.elu, ops.selu, ops.gelu, ops.silu, ops.silu, \
    ops.softplus

for _name in ("linear", "relu", "relu6", "sigmoid", "tanh", "softmax", "log_softmax", "elu",
              "selu", "gelu", "silu", "swish", "softplus", "leaky_relu", "exponential",
              "hard_sigmoid", "softsign"):
    ACTIVATIONS.add(_name, globals()[_name])


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


__all__ = [
    "ACTIVATIONS", "elu", "exponential", "gelu", "get", "hard_sigmoid", "leaky_relu",
    "linear", "log_softmax", "relu", "relu6", "selu", "serialize", "sigmoid", "silu",
    "softmax", "softplus", "softsign", "swish", "tanh",
]

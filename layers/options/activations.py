"""Activation functions (``keras.activations``), looked up by their Keras string names
(``"relu"``, ``"mish"``, ``"hard_swish"``, ...) with Keras' arguments and defaults.

Each is a differentiable op of :mod:`lamina.ops` (one hand-written backward), so
``Dense(8, activation="mish")`` and ``lamina.activations.mish(x)`` both get gradients.
"""

from ...backends import ops
from ...backends.ops import activations as _ops
from ...backends.registry import GLOBAL_CUSTOM_NAMES, Registry, find_custom_object

ACTIVATIONS = Registry("activation")


def linear(x):
    """Identity."""
    return x


def exponential(x):
    """``exp(x)``."""
    return ops.exp(x)


def relu(x, negative_slope=0.0, max_value=None, threshold=0.0):
    """Rectified linear unit: ``max(x, 0)`` by default; with Keras' options the values
    below ``threshold`` become ``negative_slope * (x - threshold)`` and the output is
    capped at ``max_value``."""
    if negative_slope == 0.0 and max_value is None and threshold == 0.0:
        return ops.relu(x)
    return _ops.relu_variant(x, negative_slope, max_value, threshold)


def leaky_relu(x, negative_slope=0.2):
    """Leaky ReLU with Keras' default slope 0.2."""
    return ops.leaky_relu(x, negative_slope)


def elu(x, alpha=1.0):
    """``x`` for ``x > 0``, ``alpha * (exp(x) - 1)`` otherwise."""
    return ops.elu(x, alpha)


def gelu(x, approximate=False):
    """Gaussian error linear unit; Keras' activation defaults to the exact erf form
    (``approximate=False``), unlike ``ops.gelu``."""
    return ops.gelu(x, approximate=approximate)


def softmax(x, axis=-1):
    """Softmax over ``axis``."""
    return ops.softmax(x, axis=axis)


def log_softmax(x, axis=-1):
    """Log-softmax over ``axis``."""
    return ops.log_softmax(x, axis=axis)


def celu(x, alpha=1.0):
    """Continuously differentiable ELU."""
    return _ops.celu(x, alpha)


def glu(x, axis=-1):
    """Gated linear unit over ``axis`` (its size must be even)."""
    return _ops.glu(x, axis)


def hard_shrink(x, threshold=0.5):
    """``x`` where ``|x| > threshold``, else 0."""
    return _ops.hard_shrink(x, threshold)


def soft_shrink(x, threshold=0.5):
    """``x`` moved ``threshold`` towards 0, 0 inside ``[-threshold, threshold]``."""
    return _ops.soft_shrink(x, threshold)


def squareplus(x, b=4):
    """``(x + sqrt(x**2 + b)) / 2``."""
    return _ops.squareplus(x, b)


def sparsemax(x, axis=-1):
    """Sparsemax over ``axis``: a probability vector with exact zeros."""
    return _ops.sparsemax(x, axis)


def threshold(x, threshold, default_value):
    """``x`` where ``x > threshold``, else ``default_value``."""
    return _ops.threshold(x, threshold, default_value)


relu6, sigmoid, tanh, selu, silu, softplus = (ops.relu6, ops.sigmoid, ops.tanh, ops.selu,
                                              ops.silu, ops.softplus)
swish = silu
(hard_sigmoid, hard_silu, hard_tanh, log_sigmoid, mish, softsign, sparse_plus,
 sparse_sigmoid, tanh_shrink) = (_ops.hard_sigmoid, _ops.hard_silu, _ops.hard_tanh,
                                 _ops.log_sigmoid, _ops.mish, _ops.softsign, _ops.sparse_plus,
                                 _ops.sparse_sigmoid, _ops.tanh_shrink)
hard_swish = hard_silu

_NAMES = ("celu", "elu", "exponential", "gelu", "glu", "hard_shrink", "hard_sigmoid",
          "hard_silu", "hard_swish", "hard_tanh", "leaky_relu", "linear", "log_sigmoid",
          "log_softmax", "mish", "relu", "relu6", "selu", "sigmoid", "silu", "soft_shrink",
          "softmax", "softplus", "softsign", "sparse_plus", "sparse_sigmoid", "sparsemax",
          "squareplus", "swish", "tanh", "tanh_shrink", "threshold")
for _name in _NAMES:
    ACTIVATIONS.add(_name, globals()[_name])


def get(identifier):
    """Resolve ``None`` (linear), a Keras name, a serialized dict or a callable to an
    activation function.

    Raises ``ValueError`` listing the known names for an unknown string.
    """
    if identifier is None:
        return linear
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise TypeError(f"activation must be a name or a callable, got {identifier!r}")


def serialize(activation):
    """The Keras name of an activation function (its ``__name__`` for custom callables)."""
    for name in ACTIVATIONS.names():
        if ACTIVATIONS.lookup(name) is activation:
            return name
    registered = GLOBAL_CUSTOM_NAMES.get(activation)   # register_keras_serializable
    return registered or getattr(activation, "__name__", str(activation))


def deserialize(config, custom_objects=None):
    """The activation function named by ``config``: a name, or Keras 3's serialized
    ``{"class_name": "function", "config": name}`` dict; ``custom_objects`` maps custom
    names to functions."""
    if isinstance(config, dict):
        if "config" not in config:
            raise ValueError(f"cannot deserialize an activation from {config!r}: expected a "
                             "name or a dict with 'config'")
        registered = config.get("registered_name")
        config = registered if isinstance(registered, str) and ">" in registered \
            else config["config"]
    if not isinstance(config, str):
        raise ValueError(f"cannot deserialize an activation from {config!r}: expected a name")
    # Functions keep Keras <= 3.6's fallback: a bare name finds a registered "package>name".
    found = find_custom_object(config, custom_objects, by_suffix=True)
    return found if found is not None else ACTIVATIONS.lookup(config)


__all__ = ["ACTIVATIONS", "deserialize", "get", "serialize", *_NAMES]

"""Activations looked up by their Keras names (``layers/options/activations.py``): values
against NumPy references, serialization, ``get`` of None / callables / unknown names."""

import math

import numpy as np
import pytest

import lamina
from lamina import activations, layers


X = np.linspace(-3, 3, 13, dtype="float32").reshape(1, -1)


def _sigmoid(z):
    return 1 / (1 + np.exp(-z))


REFERENCES = {
    "linear": lambda z: z,
    "relu": lambda z: np.maximum(z, 0),
    "relu6": lambda z: np.clip(z, 0, 6),
    "sigmoid": _sigmoid,
    "tanh": np.tanh,
    "softmax": lambda z: np.exp(z) / np.exp(z).sum(-1, keepdims=True),
    "log_softmax": lambda z: z - np.log(np.exp(z).sum(-1, keepdims=True)),
    "elu": lambda z: np.where(z > 0, z, np.exp(z) - 1),
    "selu": lambda z: 1.0507009873554805 * np.where(z > 0, z, 1.6732632423543772
                                                    * (np.exp(z) - 1)),
    "softplus": lambda z: np.log1p(np.exp(z)),
    "softsign": lambda z: z / (1 + np.abs(z)),
    "swish": lambda z: z * _sigmoid(z),
    "silu": lambda z: z * _sigmoid(z),
    "exponential": np.exp,
    "hard_sigmoid": lambda z: np.clip(z / 6 + 0.5, 0, 1),
    "leaky_relu": lambda z: np.where(z > 0, z, 0.2 * z),
    "gelu": lambda z: 0.5 * z * (1 + np.vectorize(math.erf)(z / math.sqrt(2))),
}


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_activation_by_keras_name_matches_reference(name):
    fn = activations.get(name)
    out = fn(lamina.ops.convert_to_tensor(X)).numpy()
    # gelu may use the tanh approximation (Keras' default is approximate=True)
    tolerance = 1e-3 if name == "gelu" else 1e-5
    np.testing.assert_allclose(out, REFERENCES[name](X.astype("float64")), rtol=tolerance,
                               atol=tolerance)
    assert activations.serialize(fn) in (name, "silu" if name == "swish" else name)


def test_activation_get_none_callable_and_unknown():
    assert activations.get(None) is activations.linear
    custom = lambda z: z * 2  # noqa: E731
    assert activations.get(custom) is custom
    with pytest.raises(ValueError) as info:
        activations.get("relux")
    message = str(info.value)
    assert "relux" in message and "relu" in message and "sigmoid" in message
    with pytest.raises(TypeError):
        activations.get(3)
    with pytest.raises(ValueError, match="relux"):
        layers.Dense(2, activation="relux")

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


# Every keras.activations function on KERAS_X, from Keras 3.15 (torch backend):
#   x = np.array(KERAS_X, dtype="float32")
#   {n: np.round(np.asarray(getattr(keras.activations, n)(x)), 7) for n in KERAS_VALUES}
KERAS_X = [-3.5, -2.0, -1.0, -0.4, 0.3, 0.9, 1.5, 4.0, 7.0]
KERAS_VALUES = {
    "celu": [-0.9698026, -0.8646647, -0.6321205, -0.32968, 0.3, 0.9, 1.5, 4.0, 7.0],
    "gelu": [-0.0008143, -0.0455001, -0.1586553, -0.1378313, 0.1853734, 0.7343459, 1.3997891,
             3.9998732, 7.0],
    "hard_shrink": [-3.5, -2.0, -1.0, 0.0, 0.0, 0.9, 1.5, 4.0, 7.0],
    "hard_sigmoid": [0.0, 0.1666667, 0.3333333, 0.4333333, 0.55, 0.65, 0.75, 1.0, 1.0],
    "hard_silu": [-0.0, -0.3333333, -0.3333333, -0.1733333, 0.165, 0.585, 1.125, 4.0, 7.0],
    "hard_swish": [-0.0, -0.3333333, -0.3333333, -0.1733333, 0.165, 0.585, 1.125, 4.0, 7.0],
    "hard_tanh": [-1.0, -1.0, -1.0, -0.4, 0.3, 0.9, 1.0, 1.0, 1.0],
    "log_sigmoid": [-3.5297503, -2.1269281, -1.3132617, -0.9130152, -0.5543552, -0.3411539,
                    -0.2014133, -0.0181499, -0.0009115],
    "mish": [-0.1040957, -0.2525015, -0.3034015, -0.1889165, 0.2080014, 0.7612059, 1.4033782,
             3.9974129, 6.9999886],
    "selu": [-1.7050093, -1.5201665, -1.1113307, -0.5796101, 0.3152103, 0.9456309, 1.5760515,
             4.2028041, 7.354907],
    "soft_shrink": [-3.0, -1.5, -0.5, -0.0, 0.0, 0.4, 1.0, 3.5, 6.5],
    "softsign": [-0.7777778, -0.6666667, -0.5, -0.2857143, 0.2307692, 0.4736842, 0.6, 0.8,
                 0.875],
    "sparse_plus": [0.0, 0.0, 0.0, 0.09, 0.4225, 0.9025, 1.5, 4.0, 7.0],
    "sparse_sigmoid": [0.0, 0.0, 0.0, 0.3, 0.65, 0.95, 1.0, 1.0, 1.0],
    "squareplus": [0.2655644, 0.4142135, 0.618034, 0.8198039, 1.1611874, 1.5465856, 2.0,
                   4.2360678, 7.1400547],
    "tanh_shrink": [-2.501822, -1.0359724, -0.2384058, -0.020051, 0.0086874, 0.1837021,
                    0.5948517, 3.0006707, 6.0000019],
}
# keras.activations.relu(x, negative_slope=0.1, max_value=5.0, threshold=0.5)
KERAS_RELU_OPTIONS = [-0.4, -0.25, -0.15, -0.09, -0.02, 0.9, 1.5, 4.0, 5.0]
# keras.activations.threshold(x, 0.5, -1.0)
KERAS_THRESHOLD = [-1.0, -1.0, -1.0, -1.0, -1.0, 0.9, 1.5, 4.0, 7.0]
# m = [[0.1, 1.2, -0.5, 0.9], [2.0, -1.0, 0.0, 0.3]]: keras.activations.glu(m)
KERAS_GLU = [[0.03775409981608391, 0.8531394004821777], [1.0, -0.5744425058364868]]


@pytest.mark.parametrize("name", sorted(KERAS_VALUES))
def test_activation_matches_keras(name):
    out = getattr(activations, name)(np.array(KERAS_X, dtype="float32"))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out.numpy(), KERAS_VALUES[name], rtol=2e-6, atol=2e-6)
    assert activations.get(name) is getattr(activations, name)
    assert activations.deserialize(activations.serialize(activations.get(name))) \
        is getattr(activations, name)


def test_relu_threshold_and_glu_match_keras():
    x = np.array(KERAS_X, dtype="float32")
    relu = activations.relu(x, negative_slope=0.1, max_value=5.0, threshold=0.5)
    np.testing.assert_allclose(relu.numpy(), KERAS_RELU_OPTIONS, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(activations.threshold(x, 0.5, -1.0).numpy(), KERAS_THRESHOLD)
    m = np.array([[0.1, 1.2, -0.5, 0.9], [2.0, -1.0, 0.0, 0.3]], dtype="float32")
    np.testing.assert_allclose(activations.glu(m).numpy(), KERAS_GLU, rtol=1e-6)


def test_sparsemax_is_a_probability_vector():
    """Textbook sparsemax (Martins & Astudillo): it sums to 1. Keras 3.15's backends agree
    where the support has one element (second row); for larger supports their threshold
    sums the cumulative sums and the outputs do not sum to 1 (first row: Keras gives
    [0, 0.05, 0, 0])."""
    m = np.array([[0.1, 1.2, -0.5, 0.9], [2.0, -1.0, 0.0, 0.3]], dtype="float32")
    np.testing.assert_allclose(activations.sparsemax(m).numpy(),
                               [[0.0, 0.65, 0.0, 0.35], [1.0, 0.0, 0.0, 0.0]], atol=1e-6)


def test_keras_activation_names_in_layers_with_gradients():
    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(3, activation="mish"),
                               layers.Dense(2, activation="hard_swish")])
    assert model.layers[0].get_config()["activation"] == "mish"
    assert model.layers[1].get_config()["activation"] == "hard_silu"
    x = lamina.Tensor(np.linspace(-1, 1, 8, dtype="float32").reshape(2, 4))
    loss = lamina.ops.sum(model(x))
    gradients = lamina.grad(loss, model.trainable_weights)
    assert all(float(np.abs(np.asarray(g)).sum()) > 0 for g in gradients)


def test_deserialize_keras3_dict_and_custom_objects():
    assert activations.deserialize({"module": "keras.activations", "class_name": "function",
                                    "config": "log_sigmoid", "registered_name": None}) \
        is activations.log_sigmoid
    custom = lambda z: z  # noqa: E731
    assert activations.deserialize("my_act", custom_objects={"my_act": custom}) is custom
    with pytest.raises(ValueError, match="unknown activation 'nope'"):
        activations.deserialize("nope")

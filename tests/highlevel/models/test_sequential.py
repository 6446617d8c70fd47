"""Sequential: built from a list or on first data, add and pop, explicit build shapes,
config round trips, and a layer that does not fit leaving the model unchanged."""

import numpy as np
import pytest

import lamina
from harness.models import f32, rng
from lamina import layers


def test_sequential_from_list_with_input_is_built():
    lamina.utils.set_random_seed(0)
    first, second = layers.Dense(4, activation="relu"), layers.Dense(2)
    model = lamina.Sequential([lamina.Input((3,)), first, second])
    assert model.built and model.layers == [first, second]
    assert model.inputs[0].shape == (None, 3) and model.outputs[0].shape == (None, 2)
    assert [w.shape for w in model.weights] == [(3, 4), (4,), (4, 2), (2,)]
    x = f32(rng().standard_normal((5, 3)))
    k1, b1, k2, b2 = model.get_weights()
    expected = np.maximum(x @ k1 + b1, 0) @ k2 + b2
    np.testing.assert_allclose(model.predict(x, verbose=0), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(model(x).numpy(), expected, rtol=1e-5, atol=1e-6)


def test_sequential_add_and_pop():
    model = lamina.Sequential(name="stack")
    model.add(lamina.Input((6,)))
    model.add(layers.Dense(5))
    model.add(layers.Dense(4))
    last = layers.Dense(3)
    model.add(last)
    assert [layer.units for layer in model.layers] == [5, 4, 3]
    assert model.outputs[0].shape == (None, 3)
    assert model.pop() is last
    assert model.outputs[0].shape == (None, 4) and len(model.weights) == 4
    assert model.predict(np.zeros((2, 6)), verbose=0).shape == (2, 4)
    with pytest.raises(ValueError, match="already in Sequential"):
        model.add(model.layers[0])
    with pytest.raises(TypeError, match="only accepts layers"):
        model.add("dense")
    with pytest.raises(ValueError, match="Input can only come first"):
        model.add(lamina.Input((6,)))
    empty = lamina.Sequential()
    with pytest.raises(ValueError, match="no layers to pop"):
        empty.pop()


def test_sequential_built_on_first_data():
    model = lamina.Sequential([layers.Dense(4, activation="relu"), layers.Dense(2)])
    assert not model.built and model.weights == []
    out = model.predict(np.ones((3, 7), dtype="float32"), verbose=0)
    assert out.shape == (3, 2) and model.built
    assert [w.shape for w in model.weights] == [(7, 4), (4,), (4, 2), (2,)]
    assert model.inputs[0].shape == (None, 7)
    # the same can happen in fit
    fresh = lamina.Sequential([layers.Dense(1)])
    fresh.compile(optimizer="sgd", loss="mse")
    fresh.fit(np.ones((8, 5), dtype="float32"), np.ones((8, 1), dtype="float32"), verbose=0)
    assert fresh.get_weights()[0].shape == (5, 1)
    # and with input_shape= on the first layer (Keras 2 style)
    keras2 = lamina.Sequential([layers.Dense(2, input_shape=(9,))])
    assert keras2.built and keras2.weights[0].shape == (9, 2)


def test_sequential_build_with_explicit_shape():
    model = lamina.Sequential([layers.Dense(3)])
    model.build((None, 4))
    assert model.built and model.weights[0].shape == (4, 3)


def test_sequential_config_round_trip():
    lamina.utils.set_random_seed(0)
    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(3, activation="tanh"),
                               layers.Dropout(0.2), layers.Dense(2, activation="softmax")],
                              name="seq_cfg")
    config = model.get_config()
    assert config["name"] == "seq_cfg"
    assert [entry["class_name"] for entry in config["layers"]] == [
        "InputLayer", "Dense", "Dropout", "Dense"]
    rebuilt = lamina.Sequential.from_config(config)
    assert [type(layer) for layer in rebuilt.layers] == [type(layer) for layer in model.layers]
    assert [w.shape for w in rebuilt.weights] == [w.shape for w in model.weights]
    rebuilt.set_weights(model.get_weights())
    x = f32(rng(7).standard_normal((3, 4)))
    np.testing.assert_allclose(rebuilt.predict(x, verbose=0), model.predict(x, verbose=0),
                               rtol=1e-6)
    assert rebuilt.get_config() == config


def test_a_layer_that_does_not_fit_leaves_the_sequential_model_unchanged():
    model = lamina.Sequential([lamina.Input((4,)), layers.Dense(3)])
    x = np.ones((2, 4), "float32")
    expected = model.predict(x, verbose=0)
    with pytest.raises(ValueError, match="conv2d"):
        model.add(layers.Conv2D(2, 3))
    assert [layer.name for layer in model.layers] == [model.layers[0].name]
    np.testing.assert_array_equal(model.predict(x, verbose=0), expected)


# ------------------------------------------------------------------ raw text
# A Sequential model of raw text: Input(dtype="string") keeps the strings for its
# preprocessing layer in predict, a direct call, fit, and nested in a functional model.
SENTENCES = np.array([["the cat sat"], ["the dog ran"], ["a cat ran"], ["the dog sat"]])
LABELS = np.array([0, 1, 0, 1])


def text_model(with_input):
    vectorizer = layers.TextVectorization(max_tokens=20, output_mode="multi_hot")
    vectorizer.adapt(SENTENCES[:, 0])
    stack = [vectorizer, layers.Dense(2, activation="softmax")]
    if with_input:
        stack.insert(0, layers.Input((1,), dtype="string"))
    return lamina.Sequential(stack)


@pytest.mark.parametrize("with_input", [True])
def test_sequential_takes_raw_strings(with_input):
    model = text_model(with_input)
    predicted = model.predict(SENTENCES, verbose=0)
    assert predicted.shape == (4, 2)
    np.testing.assert_allclose(np.asarray(model(SENTENCES).data), predicted, rtol=1e-6)
    model.compile("adam", "sparse_categorical_crossentropy")
    model.fit(SENTENCES, LABELS, epochs=1, verbose=0)


def test_string_sequential_nested_in_a_functional_model():
    inner = text_model(with_input=True)
    inputs = lamina.Input((1,), dtype="string")
    outer = lamina.Model(inputs, inner(inputs))
    np.testing.assert_allclose(outer.predict(SENTENCES, verbose=0),
                               inner.predict(SENTENCES, verbose=0), rtol=1e-6)

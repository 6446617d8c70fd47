"""A Sequential model of raw text: ``Input(dtype="string")`` (or a text layer first) keeps
the strings for its preprocessing layer in predict, a direct call, fit, and when the model
is nested in a functional model."""

import numpy as np
import pytest

import lamina
from lamina import layers

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

"""TextVectorization (``layers/preprocessing/text.py``) against Keras 3.15 + TensorFlow
outputs committed in ``tests/data/keras/preprocessing_references.json`` (made by
``tests/data/keras/make_preprocessing_references.py``), plus config round trips and bad input."""

import json
import os

import numpy as np
import pytest

import lamina
from lamina import layers

REFERENCES = os.path.join(os.path.dirname(__file__), "..", "..", "data", "keras",
                          "preprocessing_references.json")
with open(REFERENCES) as handle:
    REF = json.load(handle)


@pytest.mark.parametrize("name", sorted(REF["text"]))
def test_matches_keras(name):
    case = REF["text"][name]
    kwargs = dict(case["kwargs"])
    if isinstance(kwargs.get("ngrams"), list):
        kwargs["ngrams"] = tuple(kwargs["ngrams"])
    layer = layers.TextVectorization(**kwargs)
    layer.adapt(REF["sentences"])
    assert layer.get_vocabulary() == case["vocabulary"]
    out = layer(np.array(REF["queries"])).numpy()
    np.testing.assert_allclose(out, np.array(case["output"]), rtol=1e-6, atol=1e-6)


def test_keras_docstring_example_and_list_input():
    layer = layers.TextVectorization(max_tokens=5000, output_sequence_length=4)
    layer.adapt(["foo bar", "bar baz", "baz bada boom"])
    np.testing.assert_array_equal(layer([["foo qux bar"], ["qux baz"]]).numpy(),
                                  [[4, 1, 3, 0], [1, 2, 0, 0]])
    fixed = layers.TextVectorization(vocabulary=["earth", "wind", "and", "fire"])
    assert fixed.get_vocabulary() == ["", "[UNK]", "earth", "wind", "and", "fire"]
    assert fixed.vocabulary_size() == 6
    assert fixed.get_vocabulary(include_special_tokens=False) == ["earth", "wind", "and",
                                                                  "fire"]


def test_callable_standardize_and_split():
    layer = layers.TextVectorization(
        standardize=lambda text: np.array([s.upper() for s in text], dtype=object),
        split=lambda text: [s.split("-") for s in text], output_sequence_length=3)
    layer.adapt(np.array(["a-b", "b-c-c"]))
    assert layer.get_vocabulary() == ["", "[UNK]", "C", "B", "A"]
    np.testing.assert_array_equal(layer(np.array(["c-a", "x"])).numpy(), [[2, 4, 0], [1, 0, 0]])


def test_config_round_trip_keeps_the_vocabulary():
    layer = layers.TextVectorization(output_mode="tf_idf", ngrams=2)
    layer.adapt(REF["sentences"])
    config = json.loads(json.dumps(layer.get_config()))
    clone = layers.TextVectorization.from_config(config)
    assert clone.get_vocabulary() == layer.get_vocabulary()
    query = np.array(REF["queries"])
    np.testing.assert_allclose(clone(query).numpy(), layer(query).numpy(), rtol=1e-6)


def test_symbolic_output_shape():
    inputs = lamina.Input(shape=(1,), dtype="string")
    layer = layers.TextVectorization(output_sequence_length=7, vocabulary=["a"])
    assert layer(inputs).shape == (None, 7)
    bag = layers.TextVectorization(output_mode="multi_hot", vocabulary=["a", "b"])
    assert bag(inputs).shape == (None, 3)


def test_bad_input():
    layer = layers.TextVectorization(vocabulary=["a"])
    with pytest.raises(ValueError, match="text_vectorization.*expects string inputs.*float"):
        layer(np.zeros((2, 1)))
    with pytest.raises(ValueError, match=r"shape \(batch,\) or \(batch, 1\), got \(2, 2\)"):
        layer(np.array([["a", "b"], ["c", "d"]]))
    with pytest.raises(ValueError, match="cannot adapt to empty data"):
        layers.TextVectorization().adapt(["", "  "])
    with pytest.raises(ValueError, match="standardize"):
        layers.TextVectorization(standardize="upper")
    with pytest.raises(ValueError, match="output_sequence_length"):
        layers.TextVectorization(output_mode="count", output_sequence_length=3)


def test_raw_sentences_train_a_model_and_reload_from_h5(tmp_path):
    sentences = np.array(["good movie great fun", "bad boring awful",
                          "great acting good plot", "awful waste bad"] * 4)
    labels = np.array([1, 0, 1, 0] * 4)
    vectorize = layers.TextVectorization(max_tokens=30, output_sequence_length=5)
    vectorize.adapt(sentences)
    inputs = lamina.Input(shape=(1,), dtype="string")
    hidden = layers.GlobalAveragePooling1D()(layers.Embedding(30, 8)(vectorize(inputs)))
    model = lamina.Model(inputs, layers.Dense(1, activation="sigmoid")(hidden))
    model.compile("adam", "binary_crossentropy", metrics=["accuracy"])
    history = model.fit(sentences[:, None], labels, epochs=40, batch_size=4, verbose=0)
    assert history.history["accuracy"][-1] == 1.0
    assert model.evaluate(sentences[:, None], labels, verbose=0)[1] == 1.0
    query = np.array([["good fun"], ["bad awful"]])
    before = model.predict(query, verbose=0)
    model.save(tmp_path / "text.h5")
    restored = lamina.load_model(tmp_path / "text.h5")
    np.testing.assert_array_equal(restored.predict(query, verbose=0), before)
    assert restored.layers[1].get_vocabulary() == vectorize.get_vocabulary()

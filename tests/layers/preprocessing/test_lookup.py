"""StringLookup / IntegerLookup (``layers/preprocessing/lookup.py``) against Keras 3.15 +
TensorFlow outputs in ``tests/data/keras/preprocessing_references.json`` (script beside it),
Keras' docstring examples, round trips and bad input."""

import json
import os

import numpy as np
import pytest

from lamina import layers

REFERENCES = os.path.join(os.path.dirname(__file__), "..", "..", "data", "keras",
                          "preprocessing_references.json")
with open(REFERENCES) as handle:
    REF = json.load(handle)["lookup"]

STRING_DATA = np.array([["a", "b", "a"], ["c", "a", "d"], ["b", "b", "e"]])
INT_DATA = np.array([[12, 36, 12], [1138, 42, 12], [7, 36, 36]])


@pytest.mark.parametrize("name", sorted(REF))
def test_matches_keras(name):
    case = REF[name]
    cls = layers.StringLookup if name.startswith("string") else layers.IntegerLookup
    layer = cls(**case["kwargs"])
    layer.adapt(STRING_DATA if cls is layers.StringLookup else INT_DATA)
    assert layer.get_vocabulary() == case["vocabulary"]
    query = np.array(case["query"])
    np.testing.assert_allclose(layer(query).numpy(), np.array(case["output"]), rtol=1e-6)


def test_keras_docstring_examples():
    vocab = ["a", "b", "c", "d"]
    data = np.array([["a", "c", "d"], ["d", "z", "b"]])
    np.testing.assert_array_equal(layers.StringLookup(vocabulary=vocab)(data).numpy(),
                                  [[1, 3, 4], [4, 0, 2]])
    multi = layers.StringLookup(vocabulary=vocab, output_mode="multi_hot")
    np.testing.assert_array_equal(multi(data).numpy(), [[0, 1, 0, 1, 1], [1, 0, 1, 0, 1]])
    inverse = layers.StringLookup(vocabulary=vocab, invert=True)
    np.testing.assert_array_equal(inverse(np.array([[1, 3, 4], [4, 0, 2]])),
                                  [["a", "c", "d"], ["d", "[UNK]", "b"]])
    ints = layers.IntegerLookup(vocabulary=[12, 36, 1138, 42], invert=True)
    np.testing.assert_array_equal(ints(np.array([[1, 3, 4], [4, 0, 2]])).numpy(),
                                  [[12, 1138, 42], [42, -1, 36]])


def test_given_vocabulary_with_special_tokens_and_tf_idf():
    layer = layers.StringLookup(vocabulary=["[UNK]", "a", "b"], output_mode="tf_idf",
                                idf_weights=[0.5, 0.25, 0.75])
    assert layer.get_vocabulary() == ["[UNK]", "a", "b"]
    np.testing.assert_allclose(layer(np.array([["a", "a", "z"]])).numpy(), [[0.5, 0.5, 0.0]])
    plain = layers.StringLookup(vocabulary=["a", "b"], output_mode="tf_idf",
                                idf_weights=[0.25, 0.75])   # OOV weight: the mean
    np.testing.assert_allclose(plain(np.array([["z", "b"]])).numpy(), [[0.5, 0.0, 0.75]])


def test_config_round_trip_and_file_vocabulary(tmp_path):
    layer = layers.StringLookup(output_mode="count", num_oov_indices=2)
    layer.adapt(STRING_DATA)
    clone = layers.StringLookup.from_config(json.loads(json.dumps(layer.get_config())))
    query = np.array([["a", "zz", "q"]])
    np.testing.assert_array_equal(clone(query).numpy(), layer(query).numpy())
    path = tmp_path / "vocab.txt"
    path.write_text("x\ny\n", encoding="utf-8")
    assert layers.StringLookup(vocabulary=str(path)).get_vocabulary() == ["[UNK]", "x", "y"]


def test_bad_input():
    strict = layers.StringLookup(vocabulary=["a"], num_oov_indices=0)
    with pytest.raises(ValueError, match="num_oov_indices=0.*OOV values \\['b'\\]"):
        strict(np.array(["a", "b"]))
    with pytest.raises(ValueError, match="string_lookup.*expects string inputs, got an array "
                                         "of dtype float64"):
        layers.StringLookup(vocabulary=["a"])(np.zeros(3))
    with pytest.raises(ValueError, match="IntegerLookup.*expects integer inputs"):
        layers.IntegerLookup(vocabulary=[1])(np.array(["a"]))
    with pytest.raises(ValueError, match="cannot adapt to empty data"):
        layers.StringLookup().adapt(np.array([], dtype=str))
    with pytest.raises(ValueError, match="repeated tokens \\['a'\\]"):
        layers.StringLookup(vocabulary=["a", "a"])
    with pytest.raises(ValueError, match="has no vocabulary"):
        layers.StringLookup(output_mode="multi_hot")(np.array(["a"]))

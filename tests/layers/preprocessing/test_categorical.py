"""CategoryEncoding, Hashing and Discretization (``layers/preprocessing/categorical.py``)
against Keras 3.15 outputs (inline, from ``KERAS_BACKEND=torch /work/kvenv/bin/python``, and
``preprocessing_references.json``) and Keras' docstring examples."""

import json
import os

import numpy as np
import pytest

from lamina import layers

REFERENCES = os.path.join(os.path.dirname(__file__), "..", "..", "data", "keras",
                          "preprocessing_references.json")
with open(REFERENCES) as handle:
    HASHING = json.load(handle)["hashing"]


def test_category_encoding_matches_keras():
    # keras.layers.CategoryEncoding(4, mode)(...) printed by Keras 3.15 (torch backend).
    np.testing.assert_array_equal(
        layers.CategoryEncoding(4, "multi_hot")(np.array([0, 1, 1, 3])).numpy(), [1, 1, 0, 1])
    np.testing.assert_array_equal(
        layers.CategoryEncoding(4, "one_hot")(np.array([[0], [2]])).numpy(),
        [[1, 0, 0, 0], [0, 0, 1, 0]])
    counted = layers.CategoryEncoding(4, "count")(
        np.array([[0, 1, 1], [3, 3, 2]]), count_weights=np.array([[.1, .2, .3], [.4, .5, .6]]))
    np.testing.assert_allclose(counted.numpy(), [[0.1, 0.5, 0, 0], [0, 0, 0.6, 0.9]], rtol=1e-6)
    with pytest.raises(ValueError, match=r"ids in \[0, 4\).*got values from 0 to 7"):
        layers.CategoryEncoding(4)(np.array([0, 7]))


def test_hashing_matches_keras():
    # Keras' docstring examples (FarmHash64).
    bins = layers.Hashing(num_bins=3)([["A"], ["B"], ["C"], ["D"], ["E"]]).numpy()
    np.testing.assert_array_equal(bins.ravel(), [1, 0, 1, 1, 2])
    masked = layers.Hashing(num_bins=3, mask_value="")([["A"], ["B"], [""], ["C"], ["D"]])
    np.testing.assert_array_equal(masked.numpy().ravel(), [1, 1, 0, 2, 2])
    words = np.array([["apple"], ["banana"], ["cherry"], ["durian"], ["x" * 70], ["é"]])
    np.testing.assert_array_equal(layers.Hashing(num_bins=7)(words).numpy(), HASHING["bins7"])
    np.testing.assert_array_equal(
        layers.Hashing(num_bins=5, mask_value="banana")(words).numpy(), HASHING["bins5_mask"])
    np.testing.assert_array_equal(
        layers.Hashing(num_bins=11)(np.array([[1], [42], [-7], [123456]])).numpy(),
        HASHING["ints"])
    np.testing.assert_array_equal(
        layers.Hashing(num_bins=4, output_mode="multi_hot")(
            np.array([["a", "b"], ["c", "d"]])).numpy(), HASHING["multi_hot"])



def test_salted_hashing_matches_keras():
    # Keras 3.15 (TensorFlow's to_hash_bucket_strong, SipHash-2-4 keyed by the salt).
    salted = layers.Hashing(num_bins=64, salt=1337)
    np.testing.assert_array_equal(
        salted(np.array([[0], [1], [42], [99999], [12345]])).numpy().ravel(),
        [50, 45, 37, 22, 25])
    strings = np.array([["A"], ["B"], ["C"], ["D"], ["E"], ["a longer string of 20+ bytes"]])
    np.testing.assert_array_equal(
        layers.Hashing(num_bins=3, salt=[133, 137])(strings).numpy().ravel(),
        [1, 2, 1, 0, 2, 2])
    masked = layers.Hashing(num_bins=5, salt=7, mask_value="")
    np.testing.assert_array_equal(masked(np.array([["A"], [""], ["C"]])).numpy().ravel(),
                                  [3, 0, 3])
    assert masked.get_config()["salt"] == [7, 7]
    assert layers.Hashing.from_config(masked.get_config()).salt == [7, 7]
    with pytest.raises(ValueError, match="salt"):
        layers.Hashing(num_bins=3, salt="pepper")

def test_discretization_matches_keras():
    layer = layers.Discretization(bin_boundaries=[0.0, 1.0, 2.0])
    np.testing.assert_array_equal(layer(np.array([[-1.0, 0.0, 0.5, 1.0, 2.0, 3.0]])).numpy(),
                                  [[0, 1, 1, 2, 3, 3]])
    adapted = layers.Discretization(num_bins=4, epsilon=0.01)
    adapted.adapt(np.arange(100.0).reshape(-1, 1))
    np.testing.assert_allclose(adapted.bin_boundaries,
                               [23.999982833862305, 48.99998092651367, 73.99998474121094])
    small = layers.Discretization(num_bins=3)
    small.adapt(np.arange(11.0)[None])
    np.testing.assert_allclose(small.bin_boundaries, [2.6666665077209473, 6.333333492279053])
    clone = layers.Discretization.from_config(json.loads(json.dumps(adapted.get_config())))
    assert clone.bin_boundaries == adapted.bin_boundaries
    one_hot = layers.Discretization(bin_boundaries=[0.0, 1.0], output_mode="one_hot")
    np.testing.assert_array_equal(one_hot(np.array([[-1.0], [0.5], [3.0]])).numpy(), np.eye(3))
    with pytest.raises(ValueError, match="cannot adapt to empty data"):
        layers.Discretization(num_bins=2).adapt(np.zeros((0, 1)))

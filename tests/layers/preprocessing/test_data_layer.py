"""The shared categorical encodings and host conversion (``layers/preprocessing/data_layer.py``),
checked against closed-form one-hot / bag-of-ids results."""

import numpy as np
import pytest

from lamina import Tensor
from lamina.layers.preprocessing.data_layer import encode_categorical, encoded_shape, to_host


@pytest.mark.parametrize("mode, shape, expected_shape", [
    ("one_hot", (3, 1), (3, 5)), ("one_hot", (3, 2), (3, 2, 5)),
    ("multi_hot", (3, 4), (3, 5)), ("count", (4,), (5,)), ("int", (2, 2), (2, 2))])
def test_shapes(mode, shape, expected_shape):
    indices = np.random.default_rng(0).integers(0, 5, size=shape)
    out = encode_categorical(indices, mode, 5, "float32")
    assert out.shape == expected_shape == encoded_shape(shape, mode, 5)


def test_values_and_dropped_indices():
    indices = np.array([[0, 2, 2, -1], [4, 4, 4, 1]])
    np.testing.assert_array_equal(encode_categorical(indices, "count", 5, "float32"),
                                  [[1, 0, 2, 0, 0], [0, 1, 0, 0, 3]])
    np.testing.assert_array_equal(encode_categorical(indices, "multi_hot", 5, "float32"),
                                  [[1, 0, 1, 0, 0], [0, 1, 0, 0, 1]])
    np.testing.assert_array_equal(encode_categorical(np.array([3, -1]), "one_hot", 4, "int64"),
                                  [[0, 0, 0, 1], [0, 0, 0, 0]])


def test_to_host():
    assert to_host(["a", "b"]).dtype == object
    np.testing.assert_array_equal(to_host(Tensor(np.arange(3))), [0, 1, 2])

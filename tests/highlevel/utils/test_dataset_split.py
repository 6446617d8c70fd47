"""``split_dataset`` (``highlevel/utils/dataset_split.py``): sizes as ints/fractions, structures
kept, seeded shuffling, bad sizes."""

import numpy as np
import pytest

from lamina.utils import split_dataset


def test_split_sizes_and_structures():
    x, y = np.arange(10).reshape(10, 1), np.arange(10)
    left, right = split_dataset((x, y), left_size=0.8)
    assert isinstance(left, tuple) and len(left[0]) == 8 and len(right[1]) == 2
    np.testing.assert_array_equal(right[1], [8, 9])
    left, right = split_dataset({"a": y}, right_size=3)
    assert list(left) == ["a"] and len(left["a"]) == 7
    left, right = split_dataset(y)
    assert len(left) == 5 and len(right) == 5
    first = split_dataset(y, left_size=4, shuffle=True, seed=1)
    second = split_dataset(y, left_size=4, shuffle=True, seed=1)
    np.testing.assert_array_equal(first[0], second[0])
    assert sorted(np.concatenate(first).tolist()) == list(range(10))


def test_bad_sizes():
    with pytest.raises(ValueError, match="left_size=11 exceeds the 10 samples"):
        split_dataset(np.arange(10), left_size=11)
    with pytest.raises(ValueError, match="float left_size in \\(0, 1\\), got 1.5"):
        split_dataset(np.arange(10), left_size=1.5)

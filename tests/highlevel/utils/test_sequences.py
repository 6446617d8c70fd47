"""``pad_sequences`` and ``timeseries_dataset_from_array`` (``highlevel/utils/sequences.py``)
against Keras 3.15 outputs (printed by ``KERAS_BACKEND=torch /work/kvenv/bin/python`` with
``keras.utils``; the calls are the ones below), and a window dataset that ``fit`` consumes."""

import numpy as np
import pytest

import lamina
from lamina.utils import pad_sequences, timeseries_dataset_from_array

SEQUENCES = [[1], [2, 3], [4, 5, 6, 7], []]
KERAS_PADDED = [
    ({}, [[0, 0, 0, 1], [0, 0, 2, 3], [4, 5, 6, 7], [0, 0, 0, 0]]),
    ({"maxlen": 3}, [[0, 0, 1], [0, 2, 3], [5, 6, 7], [0, 0, 0]]),
    ({"maxlen": 3, "padding": "post"}, [[1, 0, 0], [2, 3, 0], [5, 6, 7], [0, 0, 0]]),
    ({"maxlen": 2, "truncating": "post", "value": -1}, [[-1, 1], [2, 3], [4, 5], [-1, -1]]),
    ({"maxlen": 5, "padding": "post", "truncating": "post", "dtype": "float32", "value": 0.5},
     [[1.0, 0.5, 0.5, 0.5, 0.5], [2.0, 3.0, 0.5, 0.5, 0.5], [4.0, 5.0, 6.0, 7.0, 0.5],
      [0.5, 0.5, 0.5, 0.5, 0.5]]),
]


@pytest.mark.parametrize("kwargs, expected", KERAS_PADDED, ids=lambda v: str(v)[:40])
def test_pad_sequences_matches_keras(kwargs, expected):
    out = pad_sequences(SEQUENCES, **kwargs)
    np.testing.assert_array_equal(out, expected)
    assert out.dtype == np.dtype(kwargs.get("dtype", "int32"))


def test_pad_sequences_items_with_a_shape_and_bad_input():
    np.testing.assert_array_equal(pad_sequences([[[1, 2]], [[3, 4], [5, 6]]], maxlen=3),
                                  [[[0, 0], [0, 0], [1, 2]], [[0, 0], [3, 4], [5, 6]]])
    with pytest.raises(ValueError, match="padding 'pre' or 'post', got 'middle'"):
        pad_sequences(SEQUENCES, padding="middle")
    with pytest.raises(ValueError, match="dtype=object"):
        pad_sequences([["a"]], value="x")
    with pytest.raises(ValueError, match="non-iterable"):
        pad_sequences([1, 2])


def test_timeseries_windows_match_keras():
    data, targets = np.arange(20), np.arange(100, 120)
    batches = timeseries_dataset_from_array(data, targets, sequence_length=4,
                                            sequence_stride=3, sampling_rate=2, batch_size=2,
                                            start_index=1, end_index=18)
    got = [(x.tolist(), y.tolist()) for x, y in batches]
    assert got == [([[1, 3, 5, 7], [4, 6, 8, 10]], [101, 104]),
                   ([[7, 9, 11, 13], [10, 12, 14, 16]], [107, 110])]
    plain = timeseries_dataset_from_array(data, None, sequence_length=5, batch_size=4)
    assert len(plain) == 4
    np.testing.assert_array_equal(plain[3], [[12, 13, 14, 15, 16], [13, 14, 15, 16, 17],
                                             [14, 15, 16, 17, 18], [15, 16, 17, 18, 19]])


def test_timeseries_shuffle_is_a_seeded_permutation_and_fit_accepts_it():
    data = np.random.default_rng(0).normal(size=(64, 3)).astype("float32")
    targets = data[:, 0].copy()
    first = timeseries_dataset_from_array(data, targets, 6, batch_size=16, shuffle=True, seed=3)
    again = timeseries_dataset_from_array(data, targets, 6, batch_size=16, shuffle=True, seed=3)
    np.testing.assert_array_equal(first.arrays[0], again.arrays[0])
    np.testing.assert_array_equal(np.sort(first.arrays[1]), np.sort(targets[:59]))
    model = lamina.Sequential([lamina.Input((6, 3)), lamina.layers.Flatten(),
                               lamina.layers.Dense(1)])
    model.compile("adam", "mse")
    history = model.fit(first, epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2
    assert model.predict(first, verbose=0).shape == (59, 1)

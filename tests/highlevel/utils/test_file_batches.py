"""``FileBatches`` and the folder index (``highlevel/utils/file_batches.py``): batches in
file order, a seeded new order per epoch (the same for the same seed), unbatched items,
loading with workers, and Keras' order of files and labels."""

import os

import numpy as np
import pytest

import lamina
from lamina.highlevel.utils.file_batches import FileBatches, index_directory, split


def numbers(count, shuffle=False, seed=0, batch_size=4):
    """Files named by their number, 'loaded' as that number in a (1,) array."""
    return FileBatches([str(i) for i in range(count)], np.arange(count) * 10,
                       lambda path: np.array([float(path)], "float32"), batch_size,
                       shuffle, seed, ["a"])


def test_batches_in_file_order_and_unbatched_items():
    data = numbers(10)
    assert len(data) == 3
    x, y = data[2]
    np.testing.assert_array_equal(x[:, 0], [8, 9])
    np.testing.assert_array_equal(y, [80, 90])
    single = numbers(5, batch_size=None)
    assert len(single) == 5 and single[3][1] == 30 and single[3][0].shape == (1,)
    assert [int(b[0][0, 0]) for b in data] == [0, 4, 8]
    with pytest.raises(IndexError, match="batch 3 out of range"):
        data[3]


def test_each_epoch_reshuffles_reproducibly_per_seed():
    def epochs(seed, shuffle=True):
        data = numbers(12, shuffle=shuffle, seed=seed)
        seen = []
        for _ in range(3):
            seen.append(np.concatenate([b[0][:, 0] for b in data]).tolist())
            data.on_epoch_end()
        return seen

    first = epochs(5)
    assert first[0] == list(range(12))                 # the index order comes first
    assert first[1] != first[0] and first[2] != first[1]
    assert all(sorted(order) == list(range(12)) for order in first)
    assert epochs(5) == first and epochs(6) != first
    assert epochs(5, shuffle=False) == [list(range(12))] * 3


def test_workers_load_the_same_batches():
    plain, threaded = numbers(9), numbers(9)
    threaded.workers = 3
    model = lamina.Sequential([lamina.layers.Input((1,)), lamina.layers.Dense(
        1, kernel_initializer="ones", bias_initializer="zeros")])
    np.testing.assert_array_equal(model.predict(threaded, verbose=0),
                                  model.predict(plain, verbose=0))


def test_index_directory_order_labels_and_split(tmp_path):
    for folder, names in (("b", ["2.txt", "1.txt"]), ("a", ["z.txt", "sub/y.txt", "x.TXT"])):
        for name in names:
            (tmp_path / folder / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / folder / name).write_text(name)
    (tmp_path / "a" / "skip.md").write_text("")
    paths, labels, names = index_directory("t", tmp_path, "inferred", (".txt",),
                                           shuffle=False, verbose=False)
    assert [os.path.relpath(p, tmp_path) for p in paths] == [
        "a/x.TXT", "a/z.txt", "a/sub/y.txt", "b/1.txt", "b/2.txt"]
    assert labels.tolist() == [0, 0, 0, 1, 1] and names == ["a", "b"]
    shuffled, shuffled_labels, _ = index_directory("t", tmp_path, "inferred", (".txt",),
                                                   seed=3, verbose=False)
    order = np.random.RandomState(3).permutation(5)
    assert shuffled == [paths[i] for i in order]
    assert shuffled_labels.tolist() == labels[order].tolist()
    train, train_labels = split(paths, labels, 0.4, "training")
    val, val_labels = split(paths, labels, 0.4, "validation")
    assert train + val == paths and len(val) == 2 and val_labels.tolist() == [1, 1]

"""``image_dataset_from_directory`` and ``text_dataset_from_directory``
(``highlevel/utils/directory_datasets.py``) against Keras 3.15 on the folder tree of
``tests/data/keras/make_directory_references.py``: pixels for every interpolation, crop and
pad, labels in every mode, class names, file order and the training/validation files of a
seeded split (Keras' assignment is NumPy's seeded shuffle, so it matches exactly); then
``fit`` on a dataset, and bad input."""

import importlib.util
import os
import pathlib

import numpy as np
import pytest

import lamina
from lamina.utils import image_dataset_from_directory, text_dataset_from_directory

pytest.importorskip("PIL")

DATA = pathlib.Path(__file__).resolve().parents[2] / "data" / "keras"
REFERENCES = np.load(DATA / "directory_references.npz")
_spec = importlib.util.spec_from_file_location("make_directory_references",
                                               DATA / "make_directory_references.py")
TREE = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(TREE)


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    return TREE.make_tree(str(tmp_path_factory.mktemp("tree")))


def gather(dataset):
    batches = [b if isinstance(b, tuple) else (b,) for b in dataset]
    return [np.concatenate([b[i] for b in batches]) for i in range(len(batches[0]))]


def relative(paths, root):
    return [os.path.relpath(p, root) for p in paths]


@pytest.mark.parametrize("case", sorted(TREE.IMAGE_CASES))
def test_images_match_keras(tree, case):
    dataset = image_dataset_from_directory(tree[0], shuffle=False, batch_size=4,
                                           verbose=False, **TREE.IMAGE_CASES[case])
    x, y = gather(dataset)
    assert x.dtype == np.float32 and y.dtype == np.int32
    # grayscale from RGB files: Pillow's and libpng's luma rounding differ by at most 1
    np.testing.assert_allclose(x, REFERENCES[f"image_{case}"],
                               atol=1.0 if case.startswith("gray") else 2e-4)
    np.testing.assert_array_equal(y, REFERENCES[f"labels_{case}"])


@pytest.mark.parametrize("mode", sorted(TREE.LABEL_CASES))
def test_label_modes_class_names_and_file_order_match_keras(tree, mode):
    dataset = image_dataset_from_directory(tree[0], shuffle=False, image_size=(2, 2),
                                           verbose=False, **TREE.LABEL_CASES[mode])
    labels = gather(dataset)[1]
    np.testing.assert_array_equal(labels, REFERENCES[f"label_mode_{mode}"])
    assert labels.dtype == REFERENCES[f"label_mode_{mode}"].dtype
    assert dataset.class_names == list(REFERENCES[f"class_names_{mode}"])
    assert relative(dataset.file_paths, tree[0]) == list(REFERENCES[f"file_paths_{mode}"])


@pytest.mark.parametrize("seed, fraction", TREE.SPLITS)
def test_seeded_split_picks_the_files_keras_picks(tree, seed, fraction, capsys):
    train, val = image_dataset_from_directory(tree[1], image_size=(2, 2), seed=seed,
                                              validation_split=fraction, subset="both",
                                              verbose=False)
    assert relative(train.file_paths, tree[1]) == list(REFERENCES[f"split_{seed}_training"])
    assert relative(val.file_paths, tree[1]) == list(REFERENCES[f"split_{seed}_validation"])
    assert not set(train.file_paths) & set(val.file_paths)
    assert len(val.file_paths) == int(fraction * 21)
    alone = image_dataset_from_directory(tree[1], image_size=(2, 2), seed=seed,
                                         validation_split=fraction, subset="validation",
                                         verbose=False)
    assert alone.file_paths == val.file_paths
    assert f"Using {len(val.file_paths)} files for validation." in capsys.readouterr().out
    unlabeled = image_dataset_from_directory(tree[1], labels=None, image_size=(2, 2),
                                             seed=seed, verbose=False)
    assert relative(unlabeled.file_paths, tree[1]) == list(REFERENCES[f"unlabeled_{seed}"])
    assert unlabeled.class_names is None and isinstance(unlabeled[0], np.ndarray)


def test_explicit_labels_follow_their_files(tree):
    dataset = image_dataset_from_directory(tree[1], labels=list(range(21)),
                                           image_size=(2, 2), seed=7, verbose=False)
    assert relative(dataset.file_paths, tree[1]) == list(REFERENCES["listed_paths"])
    assert sorted(gather(dataset)[1]) == sorted(REFERENCES["listed_labels"])
    assert dataset.class_names == [str(i) for i in range(21)]
    # the split files hold their index as pixel value, and label i goes with sorted file i
    x, y = gather(image_dataset_from_directory(tree[1], labels=list(range(21)),
                                               image_size=(2, 2), shuffle=False,
                                               verbose=False))
    np.testing.assert_array_equal(x[:, 0, 0, 0], [i for n in (7, 5, 9) for i in range(n)])
    np.testing.assert_array_equal(y, np.arange(21))


def test_text_dataset_matches_keras(tree, tmp_path):
    strings, labels = gather(text_dataset_from_directory(tree[2], shuffle=False,
                                                         max_length=6, verbose=False))
    assert strings.dtype == object
    assert list(strings) == list(REFERENCES["text_strings"])
    np.testing.assert_array_equal(labels, REFERENCES["text_labels"])
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
    (tmp_path / "a" / "x.txt").write_text("café olé", encoding="latin-1")
    (tmp_path / "b" / "y.txt").write_text("naïve", encoding="latin-1")
    texts = text_dataset_from_directory(tmp_path, batch_size=None, shuffle=False,
                                        encoding="latin-1", max_length=4,
                                        label_mode="categorical", verbose=False)
    assert [text for text, _ in texts] == ["café", "naïv"]
    np.testing.assert_array_equal(texts[1][1], [0.0, 1.0])


def test_fit_trains_on_a_directory_dataset(tree):
    lamina.utils.set_random_seed(0)
    train, val = image_dataset_from_directory(tree[1], image_size=(2, 2), seed=3,
                                              validation_split=0.25, subset="both",
                                              batch_size=4, color_mode="grayscale",
                                              verbose=False)
    model = lamina.Sequential([lamina.layers.Input((2, 2, 1)), lamina.layers.Flatten(),
                               lamina.layers.Dense(3, activation="softmax")])
    model.compile("adam", "sparse_categorical_crossentropy")
    history = model.fit(train, validation_data=val, epochs=2, verbose=0)
    assert len(history.history["val_loss"]) == 2
    assert model.predict(val, verbose=0).shape == (len(val.file_paths), 3)


def test_follow_links(tree, tmp_path):
    (tmp_path / "only").mkdir()
    os.symlink(os.path.join(tree[1], "x"), tmp_path / "only" / "linked")
    assert image_dataset_from_directory(tmp_path, image_size=(2, 2), verbose=False,
                                        shuffle=False, follow_links=True).file_paths
    with pytest.raises(ValueError, match="no files"):
        image_dataset_from_directory(tmp_path, image_size=(2, 2), verbose=False)


def test_bad_input_names_the_argument(tree, tmp_path):
    call = image_dataset_from_directory
    (tmp_path / "flat.png").write_bytes(b"")
    with pytest.raises(ValueError, match=f"directory '{tmp_path}' has no class subfolders"):
        call(str(tmp_path), verbose=False)
    with pytest.raises(ValueError, match="does not exist"):
        call(str(tmp_path / "missing"))
    cases = [(dict(labels="folders"), "labels must be"),
             (dict(label_mode="sparse"), "label_mode must be"),
             (dict(color_mode="cmyk"), "color_mode must be"),
             (dict(image_size=(0, 3)), "image_size must be"),
             (dict(interpolation="cubic"), "interpolation must be"),
             (dict(crop_to_aspect_ratio=True, pad_to_aspect_ratio=True), "only one of"),
             (dict(validation_split=0.2), "subset and validation_split"),
             (dict(validation_split=0.2, subset="training"), "pass a seed"),
             (dict(validation_split=0.2, subset="test", seed=1), "subset must be"),
             (dict(label_mode="binary"), "exactly 2 classes"),
             (dict(class_names=["cats", "cows"]), "do not match"),
             (dict(labels=[0, 1]), "got 2 labels for the 9 files"),
             (dict(batch_size=0), "batch_size must be")]
    for kwargs, message in cases:
        with pytest.raises(ValueError, match=message):
            call(tree[0], verbose=False, **kwargs)
    with pytest.raises(ValueError, match="max_length must be"):
        text_dataset_from_directory(tree[2], max_length=0)

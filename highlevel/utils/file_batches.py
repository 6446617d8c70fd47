"""The file side of ``image_dataset_from_directory`` and ``text_dataset_from_directory``:
indexing a folder (Keras' ``index_directory``: the same files, labels, order and seeded
shuffle), the training/validation split, and :class:`FileBatches`, the dataset of files
loaded batch by batch that both return."""

import os

import numpy as np

from ..callbacks.callback import print_line
from .py_dataset import PyDataset

LABEL_MODES = ("int", "categorical", "binary", None)


def check_arguments(caller, labels, label_mode, class_names, validation_split, subset,
                    shuffle, seed):
    """The argument checks Keras' directory datasets share, as ``ValueError`` naming
    ``caller``; returns ``(labels, label_mode)`` with both None when either is."""
    if labels not in ("inferred", None):
        if not isinstance(labels, (list, tuple)):
            raise ValueError(f"{caller}: labels must be 'inferred', None or a list/tuple of "
                             f"integer labels (one per file, in sorted path order), got "
                             f"labels={labels!r}")
        if class_names:
            raise ValueError(f"{caller}: class_names can only be passed with "
                             f"labels='inferred', got labels={labels!r} and "
                             f"class_names={class_names!r}")
    if label_mode not in LABEL_MODES:
        raise ValueError(f"{caller}: label_mode must be one of 'int', 'categorical', "
                         f"'binary' or None, got label_mode={label_mode!r}")
    if validation_split and not 0 < validation_split < 1:
        raise ValueError(f"{caller}: validation_split must be between 0 and 1, got "
                         f"{validation_split!r}")
    if bool(validation_split) != bool(subset):
        raise ValueError(f"{caller}: subset and validation_split go together (got "
                         f"validation_split={validation_split!r}, subset={subset!r})")
    if subset not in ("training", "validation", "both", None):
        raise ValueError(f"{caller}: subset must be 'training', 'validation' or 'both', got "
                         f"{subset!r}")
    if validation_split and shuffle and seed is None:
        raise ValueError(f"{caller}: with validation_split and shuffle=True, pass a seed so "
                         f"that the training and validation files do not overlap")
    if labels is None or label_mode is None:
        return None, None
    return labels, label_mode


def _valid_files(directory, follow_links, formats):
    walk = sorted(os.walk(directory, followlinks=follow_links), key=lambda entry: entry[0])
    for root, _, files in walk:
        for name in sorted(files):
            if name.lower().endswith(formats):
                yield root, name


def index_directory(caller, directory, labels, formats, class_names=None, shuffle=True,
                    seed=None, follow_links=False, verbose=True):
    """``(file_paths, labels, class_names)`` as Keras' ``index_directory``: class folders in
    sorted order (or ``class_names``' order), files sorted by folder then name, then (with
    ``shuffle``) paths and labels permuted by ``np.random.RandomState(seed)``.

    Raises:
        ValueError: the directory is missing, or has no class subfolders when
            ``labels="inferred"``, or ``class_names``/``labels`` do not match it.
    """
    directory = os.fspath(directory)
    if not os.path.isdir(directory):
        raise ValueError(f"{caller}: directory {directory!r} does not exist or is not a "
                         f"directory")
    if labels == "inferred":
        folders = [name for name in sorted(os.listdir(directory))
                   if os.path.isdir(os.path.join(directory, name)) and not name.startswith(".")]
        if not folders:
            raise ValueError(f"{caller}: directory {directory!r} has no class subfolders "
                             f"(labels='inferred' reads one subfolder per class); pass "
                             f"labels=None for a folder of unlabeled files")
        if class_names is not None:
            if not set(class_names).issubset(folders):
                raise ValueError(f"{caller}: class_names {list(class_names)} do not match the "
                                 f"subfolders of {directory!r}: expected {folders} (or a "
                                 f"subset of it)")
            folders = list(class_names)
    elif class_names is not None:
        raise ValueError(f"{caller}: class_names cannot be passed with labels={labels!r}")
    else:
        folders = [""]
    file_paths, inferred = [], []
    for index, folder in enumerate(folders):
        top = os.path.join(directory, folder)
        for root, name in _valid_files(top, follow_links, formats):
            relative = os.path.join(folder, os.path.relpath(os.path.join(root, name), top))
            file_paths.append(os.path.join(directory, relative))
            inferred.append(index)
    if labels == "inferred":
        labels, class_names = np.asarray(inferred, dtype="int32"), folders
    elif labels is not None:
        if len(labels) != len(file_paths):
            raise ValueError(f"{caller}: got {len(labels)} labels for the {len(file_paths)} "
                             f"files found in directory {directory!r}")
        labels = np.asarray(labels, dtype="int32")
        class_names = [str(label) for label in sorted(set(labels.tolist()))]
    if verbose:
        classes = "" if labels is None else f" belonging to {len(class_names)} classes"
        print_line(f"Found {len(file_paths)} files{classes}.")
    if shuffle:
        seed = np.random.randint(1e6) if seed is None else seed
        np.random.RandomState(seed).shuffle(file_paths)
        if labels is not None:
            np.random.RandomState(seed).shuffle(labels)
    return file_paths, labels, None if labels is None else class_names


def split(file_paths, labels, validation_split, subset):
    """The ``subset`` (``"training"``: all but the last ``int(validation_split * n)``,
    ``"validation"``: those) of ``(file_paths, labels)``, as Keras splits; everything when
    there is no ``validation_split``."""
    if not validation_split:
        return file_paths, labels
    count = int(validation_split * len(file_paths))
    cut = slice(None, len(file_paths) - count) if subset == "training" else \
        slice(len(file_paths) - count, None)
    print_line(f"Using {len(file_paths[cut])} files for {subset}.")
    return file_paths[cut], None if labels is None else labels[cut]


def encode_labels(labels, label_mode, num_classes):
    """Integer labels as Keras yields them: ``int`` int32 ``(n,)``, ``binary`` float32
    ``(n, 1)``, ``categorical`` float32 one-hot ``(n, num_classes)``."""
    if label_mode == "binary":
        return labels.astype("float32")[:, None]
    if label_mode == "categorical":
        return (labels[:, None] == np.arange(num_classes)).astype("float32")
    return labels


class FileBatches(PyDataset):
    """Files loaded batch by batch: item ``i`` is ``(x, y)`` (``x`` alone without labels),
    ``x`` stacking ``load(path)`` of the batch's files. ``fit``/``evaluate``/``predict``
    accept it (it is a :class:`PyDataset`: set ``workers`` to load batches in parallel);
    ``len`` is the number of batches and iterating yields them in order.

    The first pass goes through the files in ``file_paths`` order (Keras' order after its
    seeded shuffle); with ``shuffle``, each later pass (after ``on_epoch_end``) takes a new
    permutation drawn from ``seed`` and the pass number.

    Attributes:
        class_names: the class names (None without labels).
        file_paths: the files, in their first-pass order.
    """

    def __init__(self, file_paths, labels, load, batch_size, shuffle, seed, class_names):
        super().__init__()
        if batch_size is not None and (isinstance(batch_size, bool) or not isinstance(
                batch_size, (int, np.integer)) or batch_size <= 0):
            raise ValueError(f"batch_size must be a positive int or None, got {batch_size!r}")
        self.file_paths, self.labels, self.load = list(file_paths), labels, load
        self.batch_size, self.shuffle, self.seed = batch_size, shuffle, seed
        self.class_names = class_names
        self._order = np.arange(len(self.file_paths))
        self._passes = 0

    def __len__(self):
        if self.batch_size is None:
            return len(self.file_paths)
        return -(-len(self.file_paths) // self.batch_size)

    def __getitem__(self, index):
        if not 0 <= index < len(self):
            raise IndexError(f"batch {index} out of range for {len(self)} batches")
        if self.batch_size is None:
            row = self._order[index]
            x = self.load(self.file_paths[row])
            return x if self.labels is None else (x, self.labels[row])
        rows = self._order[index * self.batch_size:(index + 1) * self.batch_size]
        items = [self.load(self.file_paths[row]) for row in rows]
        x = np.stack(items) if isinstance(items[0], np.ndarray) else np.array(items, object)
        return x if self.labels is None else (x, self.labels[rows])

    def __iter__(self):
        for index in range(len(self)):
            yield self[index]

    def on_epoch_end(self):
        """A new order for the next pass (with ``shuffle``)."""
        self._passes += 1
        if self.shuffle:
            self._order = np.random.RandomState(
                (self.seed + self._passes) % 2 ** 32).permutation(len(self.file_paths))


def directory_datasets(caller, directory, labels, label_mode, class_names, formats, load,
                       batch_size, shuffle, seed, validation_split, subset, follow_links,
                       verbose):
    """The :class:`FileBatches` (a tuple of two for ``subset="both"``) of a directory
    dataset whose files are read by ``load(path)``: Keras' flow shared by the image and
    text datasets."""
    labels, label_mode = check_arguments(caller, labels, label_mode, class_names,
                                         validation_split, subset, shuffle, seed)
    seed = np.random.randint(1e6) if seed is None else seed
    file_paths, labels, class_names = index_directory(
        caller, directory, labels, formats, class_names, shuffle, seed, follow_links,
        verbose)
    if label_mode == "binary" and len(class_names) != 2:
        raise ValueError(f"{caller}: label_mode='binary' needs exactly 2 classes, got "
                         f"class_names={class_names}")
    if labels is not None:
        labels = encode_labels(labels, label_mode, len(class_names))
    datasets = []
    for part in (("training", "validation") if subset == "both" else (subset,)):
        paths, part_labels = split(file_paths, labels, validation_split, part)
        if not paths:
            raise ValueError(f"{caller}: no {part + ' ' if part else ''}files with "
                             f"extensions {formats} found in directory {directory!r}")
        datasets.append(FileBatches(paths, part_labels, load, batch_size,
                                    shuffle and part != "validation", seed,
                                    class_names))
    return tuple(datasets) if subset == "both" else datasets[0]

"""``image_dataset_from_directory`` and ``text_dataset_from_directory`` as in
``keras.utils``, over local folders, returning :class:`FileBatches` of NumPy batches that
``fit`` accepts (no ``tf.data``)."""

import functools

import numpy as np

from ...backends.ops.conversion import convert_to_numpy
from ...backends.ops.image_resize import RESIZE_INTERPOLATIONS, resize
from .file_batches import directory_datasets
from .image_io import COLOR_MODES, data_format_of, load_img

IMAGE_FORMATS = (".bmp", ".gif", ".jpeg", ".jpg", ".png")
TEXT_FORMATS = (".txt",)


def _resize_with_pad(image, height, width, interpolation):
    """``tf.image.resize_with_pad``: resized to fit inside ``(height, width)`` keeping its
    aspect ratio, then padded with zeros, centered."""
    in_height, in_width = image.shape[1:3]
    ratio = max(in_width / width, in_height / height)
    fit_height, fit_width = in_height / ratio, in_width / ratio
    image = convert_to_numpy(resize(image, (int(np.floor(fit_height)), int(np.floor(fit_width))),
                                    interpolation))
    top = max(0, int(np.floor((height - fit_height) / 2)))
    left = max(0, int(np.floor((width - fit_width) / 2)))
    out = np.zeros((1, height, width, image.shape[3]), dtype=np.float32)
    out[:, top:top + image.shape[1], left:left + image.shape[2]] = image
    return out


def load_resized_image(path, image_size, color_mode, interpolation, crop_to_aspect_ratio,
                       pad_to_aspect_ratio, data_format):
    """One image file as a float32 array of ``image_size`` (values 0..255), resized as
    Keras' image datasets resize (TensorFlow's ``resize``; ``smart_resize``'s crop;
    ``resize_with_pad``)."""
    image = np.asarray(load_img(path, color_mode=color_mode), dtype=np.float32)
    image = image.reshape(image.shape[:2] + (-1,))[None]
    height, width = image_size
    if pad_to_aspect_ratio:
        image = _resize_with_pad(image, height, width, interpolation)
    else:
        image = convert_to_numpy(resize(image, (height, width), interpolation,
                                        crop_to_aspect_ratio=crop_to_aspect_ratio))
    return image[0].transpose(2, 0, 1) if data_format == "channels_first" else image[0]


def image_dataset_from_directory(directory, labels="inferred", label_mode="int",
                                 class_names=None, color_mode="rgb", batch_size=32,
                                 image_size=(256, 256), shuffle=True, seed=None,
                                 validation_split=None, subset=None, interpolation="bilinear",
                                 follow_links=False, crop_to_aspect_ratio=False,
                                 pad_to_aspect_ratio=False, data_format=None, verbose=True):
    """A dataset of the images in ``directory``, as ``keras.utils.image_dataset_from_directory``
    (needs Pillow: ``pip install 'lamina[image]'``).

    With ``labels="inferred"`` each subfolder is a class (sorted names, or ``class_names``'
    order); ``labels=None`` reads every image with no labels; a list gives one integer label
    per file in sorted path order. Files (``.bmp .gif .jpeg .jpg .png``) are ordered and
    shuffled with ``seed`` exactly as Keras orders them, so ``validation_split`` + ``subset``
    (``"training"``, ``"validation"`` or ``"both"``: a tuple) selects the same files as Keras.

    Args:
        directory: the folder.
        labels: ``"inferred"``, None, or a list/tuple of integer labels.
        label_mode: ``"int"`` (int32 ``(batch,)``), ``"categorical"`` (float32 one-hot),
            ``"binary"`` (float32 ``(batch, 1)``, 2 classes) or None (images only).
        class_names: the class folders to read, in label order (``labels="inferred"``).
        color_mode: ``"grayscale"``, ``"rgb"`` or ``"rgba"`` (1, 3 or 4 channels).
        batch_size: images per batch; None yields single images.
        image_size: ``(height, width)`` (or one int) every image is resized to.
        shuffle: shuffle the files (and reshuffle each epoch); False keeps sorted order.
        seed: the shuffle seed (needed with ``validation_split`` and ``shuffle``).
        validation_split: the fraction held out for validation, with ``subset``.
        subset: ``"training"``, ``"validation"`` or ``"both"``.
        interpolation: ``"bilinear"``, ``"nearest"``, ``"bicubic"``, ``"area"``,
            ``"lanczos3"``, ``"lanczos5"`` (TensorFlow's kernels).
        follow_links: also walk subfolders that are symbolic links.
        crop_to_aspect_ratio: resize the largest centered crop with the target's aspect
            ratio instead of distorting the image.
        pad_to_aspect_ratio: resize to fit and pad with zeros instead of distorting.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        verbose: print how many files and classes were found.

    Returns:
        A :class:`~lamina.highlevel.utils.file_batches.FileBatches` yielding float32 image
        batches ``(batch, height, width, channels)`` (with their labels), with
        ``class_names`` and ``file_paths``; a pair for ``subset="both"``.
    """
    caller = "image_dataset_from_directory"
    if color_mode not in COLOR_MODES:
        raise ValueError(f"{caller}: color_mode must be one of {tuple(COLOR_MODES)}, got "
                         f"{color_mode!r}")
    if isinstance(image_size, (int, np.integer)):
        image_size = (int(image_size), int(image_size))
    if not isinstance(image_size, (list, tuple)) or len(image_size) != 2 or not all(
            isinstance(side, (int, np.integer)) and side > 0 for side in image_size):
        raise ValueError(f"{caller}: image_size must be (height, width), two positive ints, "
                         f"got {image_size!r}")
    interpolation = str(interpolation).lower()
    if interpolation not in RESIZE_INTERPOLATIONS:
        raise ValueError(f"{caller}: interpolation must be one of {RESIZE_INTERPOLATIONS}, "
                         f"got {interpolation!r}")
    if crop_to_aspect_ratio and pad_to_aspect_ratio:
        raise ValueError(f"{caller}: only one of crop_to_aspect_ratio and "
                         f"pad_to_aspect_ratio can be True")
    load = functools.partial(load_resized_image, image_size=tuple(image_size),
                             color_mode=color_mode, interpolation=interpolation,
                             crop_to_aspect_ratio=crop_to_aspect_ratio,
                             pad_to_aspect_ratio=pad_to_aspect_ratio,
                             data_format=data_format_of(data_format))
    return directory_datasets(caller, directory, labels, label_mode, class_names,
                              IMAGE_FORMATS, load, batch_size, shuffle, seed,
                              validation_split, subset, follow_links, verbose)


def read_text(path, max_length, encoding):
    """A text file's content as ``str``, cut to its first ``max_length`` characters."""
    with open(path, encoding=encoding) as file:
        text = file.read()
    return text if max_length is None else text[:max_length]


def text_dataset_from_directory(directory, labels="inferred", label_mode="int",
                                class_names=None, batch_size=32, max_length=None, shuffle=True,
                                seed=None, validation_split=None, subset=None,
                                follow_links=False, verbose=True, encoding="utf-8"):
    """A dataset of the ``.txt`` files in ``directory``, as
    ``keras.utils.text_dataset_from_directory``: the same folders, labels, file order,
    seeded shuffle and split as :func:`image_dataset_from_directory`.

    Batches are NumPy arrays of ``str`` (dtype object; what ``TextVectorization`` reads)
    instead of TensorFlow byte strings: files are decoded with ``encoding`` (lamina's extra
    argument) and ``max_length`` cuts each text to its first ``max_length`` characters.

    Returns:
        A :class:`~lamina.highlevel.utils.file_batches.FileBatches` (a pair for
        ``subset="both"``) with ``class_names`` and ``file_paths``.
    """
    caller = "text_dataset_from_directory"
    if max_length is not None and (isinstance(max_length, bool) or not isinstance(
            max_length, (int, np.integer)) or max_length <= 0):
        raise ValueError(f"{caller}: max_length must be a positive int or None, got "
                         f"{max_length!r}")
    load = functools.partial(read_text, max_length=max_length, encoding=encoding)
    return directory_datasets(caller, directory, labels, label_mode, class_names,
                              TEXT_FORMATS, load, batch_size, shuffle, seed,
                              validation_split, subset, follow_links, verbose)

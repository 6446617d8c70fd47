"""Writes directory_references.npz: what Keras 3's ``image_dataset_from_directory``,
``text_dataset_from_directory`` and image utilities (``load_img`` + ``img_to_array``) give on
the folder tree that ``make_tree`` writes (the tests write the same tree and compare).
Run once with real Keras (TensorFlow backend: its ``tf.data`` path is Keras' canonical one),
never by the tests:

    KERAS_BACKEND=tensorflow /work/kvenv/bin/python tests/data/keras/make_directory_references.py

``make_tree`` needs only NumPy and Pillow; the tests import it from this file.
"""

import os
import tempfile

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "directory_references.npz")

# (class folder, file name, PIL mode, (height, width)); a few in nested folders
IMAGES = [("cats", "a.png", "RGB", (7, 5)), ("cats", "b.PNG", "RGB", (4, 9)),
          ("cats", "sub/c.png", "RGB", (6, 6)), ("cats", "notes.txt", None, None),
          ("dogs", "d.png", "L", (6, 9)), ("dogs", "e.bmp", "RGB", (5, 5)),
          ("dogs", "f.gif", "P", (8, 3)), ("dogs", "g.png", "RGBA", (8, 4)),
          ("birds", "h.png", "RGB", (3, 10)), (".hidden", "i.png", "RGB", (4, 4))]
# many tiny files for the split comparisons: 7 + 5 + 9
SPLIT_COUNTS = {"x": 7, "y": 5, "z": 9}
TEXTS = {"neg": ["bad movie", "awful, boring plot", "not good at all"],
         "pos": ["great film", "loved it, truly wonderful", "a fine cast", "superb"]}
IMAGE_CASES = {
    "rgb_bilinear": dict(image_size=(4, 6)),
    "gray_nearest": dict(image_size=(5, 5), color_mode="grayscale", interpolation="nearest",
                         class_names=["cats", "birds"]),   # TensorFlow reads no gray BMP
    "rgba_bicubic": dict(image_size=(6, 4), color_mode="rgba", interpolation="bicubic",
                         class_names=["cats", "birds"]),   # nor an RGBA GIF
    "crop_bilinear": dict(image_size=(4, 6), crop_to_aspect_ratio=True),
    "pad_bilinear": dict(image_size=(4, 6), pad_to_aspect_ratio=True),
    "area_first": dict(image_size=(3, 3), interpolation="area", data_format="channels_first"),
    "lanczos3": dict(image_size=(5, 7), interpolation="lanczos3"),
}
LABEL_CASES = {"int": dict(), "categorical": dict(label_mode="categorical"),
               "binary": dict(label_mode="binary", class_names=["dogs", "cats"])}
SPLITS = [(1, 0.25), (42, 0.3), (1337, 0.5)]


def make_tree(root):
    """Write the image tree (``root/images``), the split tree (``root/split``) and the text
    tree (``root/texts``); return the three folders."""
    rng = np.random.RandomState(0)
    images = os.path.join(root, "images")
    from PIL import Image
    for folder, name, mode, size in IMAGES:
        path = os.path.join(images, folder, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if mode is None:
            with open(path, "w") as file:
                file.write("not an image")
            continue
        channels = {"RGB": 3, "L": 1, "P": 3, "RGBA": 4}[mode]
        pixels = rng.randint(0, 256, size + (channels,)).astype("uint8")
        image = Image.fromarray(pixels[..., 0] if channels == 1 else pixels,
                                "RGB" if mode == "P" else mode)
        if mode == "P":
            image = image.quantize(16)
        image.save(path, format={"png": "PNG", "bmp": "BMP", "gif": "GIF"}[
            name.rsplit(".", 1)[1].lower()])
    split = os.path.join(root, "split")
    for folder, count in SPLIT_COUNTS.items():
        os.makedirs(os.path.join(split, folder))
        for index in range(count):
            Image.fromarray(np.full((2, 2, 3), index, "uint8")).save(
                os.path.join(split, folder, f"{index:02d}_{folder}.png"))
    texts = os.path.join(root, "texts")
    for folder, contents in TEXTS.items():
        os.makedirs(os.path.join(texts, folder))
        for index, content in enumerate(contents):
            with open(os.path.join(texts, folder, f"t{index}.txt"), "w") as file:
                file.write(content)
    return images, split, texts


def relative(paths, root):
    return np.array([os.path.relpath(p, root) for p in paths])


def main():
    import keras
    from keras.utils import image_dataset_from_directory, text_dataset_from_directory

    def gather(dataset):
        batches = [tuple(np.asarray(part) for part in (b if isinstance(b, tuple) else (b,)))
                   for b in dataset]
        return [np.concatenate([b[i] for b in batches]) for i in range(len(batches[0]))]

    data = {}
    with tempfile.TemporaryDirectory() as root:
        images, split, texts = make_tree(root)
        for name, kwargs in IMAGE_CASES.items():
            x, y = gather(image_dataset_from_directory(images, shuffle=False, batch_size=4,
                                                       verbose=False, **kwargs))
            data[f"image_{name}"], data[f"labels_{name}"] = x, y
        for name, kwargs in LABEL_CASES.items():
            dataset = image_dataset_from_directory(images, shuffle=False, image_size=(2, 2),
                                                   verbose=False, **kwargs)
            data[f"label_mode_{name}"] = gather(dataset)[1]
            data[f"class_names_{name}"] = np.array(dataset.class_names)
            data[f"file_paths_{name}"] = relative(dataset.file_paths, images)
        for seed, fraction in SPLITS:
            train, val = image_dataset_from_directory(
                split, image_size=(2, 2), seed=seed, validation_split=fraction,
                subset="both", verbose=False)
            data[f"split_{seed}_training"] = relative(train.file_paths, split)
            data[f"split_{seed}_validation"] = relative(val.file_paths, split)
            unlabeled = image_dataset_from_directory(split, labels=None, image_size=(2, 2),
                                                     seed=seed, verbose=False)
            data[f"unlabeled_{seed}"] = relative(unlabeled.file_paths, split)
        listed = list(range(21))
        dataset = image_dataset_from_directory(split, labels=listed, image_size=(2, 2),
                                               seed=7, verbose=False)
        data["listed_paths"] = relative(dataset.file_paths, split)
        data["listed_labels"] = gather(dataset)[1]   # tf.data reshuffles: compare as sets
        strings, labels = gather(text_dataset_from_directory(texts, shuffle=False,
                                                             max_length=6, verbose=False))
        data["text_strings"] = np.array([s.decode() for s in strings])
        data["text_labels"] = labels
        array = keras.utils.img_to_array(keras.utils.load_img(
            os.path.join(images, "cats", "a.png"), target_size=(4, 3),
            interpolation="bilinear", keep_aspect_ratio=True))
        data["load_img_keep_aspect"] = array
        data["load_img_gray"] = keras.utils.img_to_array(keras.utils.load_img(
            os.path.join(images, "dogs", "e.bmp"), color_mode="grayscale"))
        data["array_to_img"] = np.asarray(keras.utils.array_to_img(
            np.linspace(-1, 3, 24, dtype="float32").reshape(2, 4, 3)))
    np.savez_compressed(OUT, **data)
    print(f"wrote {OUT}: {sorted(data)}")


if __name__ == "__main__":
    main()

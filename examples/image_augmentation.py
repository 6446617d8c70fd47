"""Images in class folders on disk -> ``image_dataset_from_directory`` -> augmentation
layers -> a small CNN, the Keras way, with no TensorFlow.

The example writes its own dataset first: scikit-learn's 8x8 digits, upscaled to 24x24
grayscale PNG files in one folder per class (``0/`` ... ``9/``) of a temporary directory.
``image_dataset_from_directory`` reads them back resized to 16x16, split 80/20 with a seed;
the training set loads its batches with 2 worker threads (it is a ``PyDataset``). Random
rotation, zoom and translation are active only while training. Needs Pillow
(pip install 'lamina[image]').

Run: python examples/image_augmentation.py   (about 20 s of CPU on 2 cores; exits 1 below
90% validation accuracy)
"""

import os
import sys
import tempfile

import numpy as np
from sklearn.datasets import load_digits

import lamina
from lamina import layers

REQUIRED_ACCURACY = 0.90


def write_digit_folders(root):
    """Every digit as ``root/<label>/<index>.png`` (24x24, values 0..255)."""
    digits = load_digits()
    pixels = np.kron(digits.images * (255.0 / 16.0), np.ones((3, 3)))[..., None]
    for label in range(10):
        os.makedirs(os.path.join(root, str(label)))
    for index, (image, label) in enumerate(zip(pixels, digits.target)):
        lamina.utils.save_img(os.path.join(root, str(label), f"{index:04d}.png"), image,
                              scale=False)
    return len(pixels)


def main():
    lamina.utils.set_random_seed(0)
    with tempfile.TemporaryDirectory() as root:
        count = write_digit_folders(root)
        print(f"wrote {count} PNG files in 10 class folders")
        train, val = lamina.utils.image_dataset_from_directory(
            root, color_mode="grayscale", image_size=(16, 16), batch_size=64,
            validation_split=0.2, subset="both", seed=1337)
        train.workers = 2                        # decode and resize in 2 threads
        print("classes:", train.class_names)

        model = lamina.Sequential([
            layers.Input((16, 16, 1)),
            layers.Rescaling(1.0 / 255),
            layers.RandomRotation(0.04, fill_mode="constant"),   # active only in fit
            layers.RandomZoom(0.1, fill_mode="constant"),
            layers.RandomTranslation(0.08, 0.08, fill_mode="constant"),
            layers.Conv2D(16, 3, padding="same", activation="relu"),
            layers.MaxPooling2D(),
            layers.Conv2D(32, 3, padding="same", activation="relu"),
            layers.MaxPooling2D(),
            layers.Flatten(),
            layers.Dense(10, activation="softmax"),
        ])
        model.compile(optimizer=lamina.optimizers.Adam(3e-3),
                      loss="sparse_categorical_crossentropy", metrics=["accuracy"])
        model.fit(train, validation_data=val, epochs=6, verbose=2)
        _, accuracy = model.evaluate(val, verbose=0)
        same = np.array_equal(model.predict(val, verbose=0), model.predict(val, verbose=0))
    print(f"inference is deterministic (augmentation off): {same}")
    print(f"validation accuracy {accuracy:.4f} (required >= {REQUIRED_ACCURACY})")
    if accuracy < REQUIRED_ACCURACY or not same:
        sys.exit(1)
    print("image augmentation OK")


if __name__ == "__main__":
    main()

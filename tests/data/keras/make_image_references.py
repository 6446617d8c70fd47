"""Writes image_references.npz: Keras 3 outputs of its image preprocessing layers (and
HashedCrossing) on fixed inputs, with the TensorFlow backend (whose resize and affine
kernels are Keras' canonical ones). Run once with real Keras, never by the tests:

    KERAS_BACKEND=tensorflow /work/kvenv/bin/python tests/data/keras/make_image_references.py

Random layers are called with factors whose draw is fixed (lower == upper), or through
``transform_images`` with a given transformation.
"""

import os

import numpy as np
import keras
from keras import layers as L

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "image_references.npz")


def numpy(value):
    return np.asarray(keras.ops.convert_to_numpy(value))


def main():
    rng = np.random.RandomState(0)
    images = rng.uniform(0, 255, (2, 5, 7, 3)).astype("float32")
    small = rng.uniform(0, 1, (2, 4, 4, 3)).astype("float32")
    data = {"images": images, "small": small}
    for method in ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5"):
        for size in ((3, 4), (8, 10), (5, 3)):
            data[f"resize_{method}_{size[0]}x{size[1]}"] = numpy(
                L.Resizing(*size, interpolation=method)(images))
        for antialias in (True,):
            data[f"resize_{method}_antialias"] = numpy(
                L.Resizing(2, 3, interpolation=method, antialias=antialias)(images))
    data["resize_crop"] = numpy(L.Resizing(4, 4, crop_to_aspect_ratio=True)(images))
    data["resize_crop_tall"] = numpy(L.Resizing(6, 2, crop_to_aspect_ratio=True)(images))
    data["resize_pad"] = numpy(L.Resizing(4, 4, pad_to_aspect_ratio=True,
                                          fill_value=7.0)(images))
    data["resize_pad_wide"] = numpy(L.Resizing(2, 8, pad_to_aspect_ratio=True)(images))
    data["resize_channels_first"] = numpy(L.Resizing(3, 2, data_format="channels_first")(
        images.transpose(0, 3, 1, 2)))
    data["resize_unbatched"] = numpy(L.Resizing(3, 4)(images[0]))
    data["resize_uint8"] = numpy(L.Resizing(3, 4)(images.astype("uint8")))
    for size in ((3, 4), (6, 9), (4, 9)):
        data[f"center_crop_{size[0]}x{size[1]}"] = numpy(L.CenterCrop(*size)(images))
    for fill in ("reflect", "wrap", "constant", "nearest"):
        for interpolation in ("bilinear", "nearest"):
            key = f"{fill}_{interpolation}"
            kwargs = dict(fill_mode=fill, interpolation=interpolation, fill_value=3.0)
            data[f"rotate90_{key}"] = numpy(
                L.RandomRotation((0.25, 0.25), **kwargs)(images, training=True))
            data[f"rotate36_{key}"] = numpy(
                L.RandomRotation((0.1, 0.1), **kwargs)(images, training=True))
            data[f"zoom_{key}"] = numpy(L.RandomZoom((0.3, 0.3), (-0.2, -0.2), **kwargs)(
                images, training=True))
            data[f"zoom_in_{key}"] = numpy(L.RandomZoom((-0.4, -0.4), **kwargs)(
                images, training=True))
            data[f"translate_{key}"] = numpy(L.RandomTranslation(
                (0.2, 0.2), (-0.3, -0.3), **kwargs)(images, training=True))
            data[f"translate_far_{key}"] = numpy(L.RandomTranslation(
                (-1.0, -1.0), (0.9, 0.9), **kwargs)(images, training=True))
    data["rotate_channels_first"] = numpy(L.RandomRotation(
        (0.1, 0.1), data_format="channels_first")(images.transpose(0, 3, 1, 2), training=True))
    flips = np.array([[[[True]]], [[[False]]]])
    for mode in ("horizontal", "vertical", "horizontal_and_vertical"):
        data[f"flip_{mode}"] = numpy(L.RandomFlip(mode).transform_images(
            images, {"flips": flips}, training=True))
    data["crop_at_1_2"] = numpy(L.RandomCrop(3, 4).transform_images(images, (1, 2)))
    contrast = np.array([0.5, 1.7], "float32").reshape(2, 1, 1, 1)
    data["contrast"] = numpy(L.RandomContrast(0.9).transform_images(
        images, {"contrast_factor": contrast}, training=True))
    data["contrast_unit"] = numpy(L.RandomContrast(0.9, value_range=(0, 1)).transform_images(
        small, {"contrast_factor": contrast}, training=True))
    data["brightness"] = numpy(L.RandomBrightness((0.2, 0.2))(images, training=True))
    data["brightness_unit"] = numpy(L.RandomBrightness((-0.3, -0.3), value_range=(0, 1))(
        small, training=True))
    flat = images.copy()
    flat[1, :, :, 2] = 9.0          # a constant channel stays as it is
    data["auto_contrast_input"] = flat
    data["auto_contrast"] = numpy(L.AutoContrast()(flat))
    data["auto_contrast_unit"] = numpy(L.AutoContrast(value_range=(0, 1))(small * 0.5 + 0.2))
    data["grayscale"] = numpy(L.RandomGrayscale(1.0)(images, training=True))
    # HashedCrossing (tf.sparse.cross_hashed)
    strings = np.array(["a", "b", "c", "a", "apple", "é", "x" * 40])
    ints = np.array([1, 2, 3, -4, 0, 123456789, 7])
    data["cross_strings"], data["cross_ints"] = strings, ints
    data["cross_str_int_5"] = numpy(L.HashedCrossing(5)((strings, ints)))
    data["cross_int_str_1000"] = numpy(L.HashedCrossing(1000)((ints, strings)))
    data["cross_three_7"] = numpy(L.HashedCrossing(7)((strings, ints, strings[::-1])))
    data["cross_one_hot_4"] = numpy(L.HashedCrossing(4, output_mode="one_hot")(
        (strings[:, None], ints[:, None])))
    data["cross_int_int_big"] = numpy(L.HashedCrossing(2**40)((ints, ints[::-1])))
    np.savez_compressed(OUT, **data)
    print(f"wrote {len(data)} arrays to {OUT}")


if __name__ == "__main__":
    main()

"""Resizing and CenterCrop (``layers/preprocessing/image_resizing.py``) against Keras 3.15
(TensorFlow backend; ``tests/data/keras/make_image_references.py``)."""

import numpy as np
import pytest

from lamina import layers

from harness.images import IMAGES, assert_matches_keras, check_layer_contract

METHODS = ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5")


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("size", [(3, 4), (8, 10), (5, 3)])
def test_resizing_interpolations_match_keras(method, size):
    assert_matches_keras(f"resize_{method}_{size[0]}x{size[1]}",
                         layers.Resizing(*size, interpolation=method)(IMAGES))


@pytest.mark.parametrize("method", METHODS)
def test_resizing_antialias_matches_keras(method):
    assert_matches_keras(f"resize_{method}_antialias",
                         layers.Resizing(2, 3, interpolation=method, antialias=True)(IMAGES))


def test_resizing_aspect_ratio_layouts_and_dtypes_match_keras():
    assert_matches_keras("resize_crop", layers.Resizing(4, 4, crop_to_aspect_ratio=True)(IMAGES))
    assert_matches_keras("resize_crop_tall",
                         layers.Resizing(6, 2, crop_to_aspect_ratio=True)(IMAGES))
    assert_matches_keras("resize_pad", layers.Resizing(4, 4, pad_to_aspect_ratio=True,
                                                       fill_value=7.0)(IMAGES))
    assert_matches_keras("resize_pad_wide",
                         layers.Resizing(2, 8, pad_to_aspect_ratio=True)(IMAGES))
    assert_matches_keras("resize_channels_first", layers.Resizing(
        3, 2, data_format="channels_first")(IMAGES.transpose(0, 3, 1, 2)))
    assert_matches_keras("resize_unbatched", layers.Resizing(3, 4)(IMAGES[0]))
    as_uint8 = layers.Resizing(3, 4)(IMAGES.astype("uint8")).numpy()
    assert as_uint8.dtype == np.uint8   # integer images come back rounded, in their dtype
    assert_matches_keras("resize_uint8", as_uint8.astype("float32"), atol=1.0)


@pytest.mark.parametrize("size", [(3, 4), (6, 9), (4, 9)])
def test_center_crop_matches_keras(size):
    # (6, 9) and (4, 9) are larger than the 5x7 images: crop to the aspect ratio + resize.
    assert_matches_keras(f"center_crop_{size[0]}x{size[1]}", layers.CenterCrop(*size)(IMAGES))


def test_center_crop_channels_first_and_unbatched():
    first = layers.CenterCrop(3, 4, data_format="channels_first")(IMAGES.transpose(0, 3, 1, 2))
    assert_matches_keras("center_crop_3x4", first.numpy().transpose(0, 2, 3, 1))
    assert_matches_keras("center_crop_3x4",
                         np.stack([layers.CenterCrop(3, 4)(image).numpy() for image in IMAGES]))


@pytest.mark.parametrize("make", [
    lambda: layers.Resizing(4, 6, interpolation="bicubic", pad_to_aspect_ratio=True),
    lambda: layers.CenterCrop(3, 3)], ids=["Resizing", "CenterCrop"])
def test_config_models_fit_and_saving(make, tmp_path):
    check_layer_contract(make, tmp_path)


def test_bad_arguments_and_inputs_raise_naming_the_layer():
    with pytest.raises(ValueError, match=r"Resizing.*interpolation.*'cubic'"):
        layers.Resizing(2, 2, interpolation="cubic")
    with pytest.raises(ValueError, match=r"Resizing.*only one of crop_to_aspect_ratio"):
        layers.Resizing(2, 2, crop_to_aspect_ratio=True, pad_to_aspect_ratio=True)
    with pytest.raises(ValueError, match=r"Resizing.*fill_mode"):
        layers.Resizing(2, 2, fill_mode="reflect")
    with pytest.raises(ValueError, match=r"CenterCrop.*height, a positive int.*height=0"):
        layers.CenterCrop(0, 2)
    with pytest.raises(ValueError, match=r"Resizing.*rank 3 .* or 4 .*shape \(5, 7\)"):
        layers.Resizing(2, 2)(IMAGES[0, :, :, 0])
    with pytest.raises(ValueError, match=r"CenterCrop.*data_format"):
        layers.CenterCrop(2, 2, data_format="NHWC")

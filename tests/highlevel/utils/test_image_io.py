"""``load_img``, ``img_to_array``, ``array_to_img``, ``save_img`` (``highlevel/utils/
image_io.py``) against Keras 3.15 on generated files (references in
``tests/data/keras/directory_references.npz``, written by ``make_directory_references.py``),
round trips through files, and the error naming ``lamina[image]`` when Pillow is missing."""

import importlib.util
import io
import os
import pathlib
import sys

import numpy as np
import pytest

import lamina
from lamina.utils import array_to_img, img_to_array, load_img, save_img

pytest.importorskip("PIL")

DATA = pathlib.Path(__file__).resolve().parents[2] / "data" / "keras"
REFERENCES = np.load(DATA / "directory_references.npz")


def make_tree(root):
    spec = importlib.util.spec_from_file_location(
        "make_directory_references", DATA / "make_directory_references.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.make_tree(root)


@pytest.fixture(scope="module")
def images(tmp_path_factory):
    return make_tree(str(tmp_path_factory.mktemp("tree")))[0]


def test_load_img_matches_keras(images):
    cropped = img_to_array(load_img(os.path.join(images, "cats", "a.png"), target_size=(4, 3),
                                    interpolation="bilinear", keep_aspect_ratio=True))
    np.testing.assert_array_equal(cropped, REFERENCES["load_img_keep_aspect"])
    assert cropped.dtype == np.float32 and cropped.shape == (4, 3, 3)
    gray = img_to_array(load_img(pathlib.Path(images) / "dogs" / "e.bmp",
                                 color_mode="grayscale"))
    np.testing.assert_array_equal(gray, REFERENCES["load_img_gray"])


def test_array_to_img_matches_keras_and_channels_first():
    x = np.linspace(-1, 3, 24, dtype="float32").reshape(2, 4, 3)
    np.testing.assert_array_equal(np.asarray(array_to_img(x)), REFERENCES["array_to_img"])
    first = array_to_img(x.transpose(2, 0, 1), data_format="channels_first")
    np.testing.assert_array_equal(np.asarray(first), REFERENCES["array_to_img"])
    assert array_to_img(np.full((2, 2, 1), 300.0), scale=False).mode == "I"
    assert array_to_img(np.zeros((2, 2, 4))).mode == "RGBA"
    with pytest.raises(ValueError, match="rank 3"):
        array_to_img(np.zeros((1, 2, 2, 3)))
    with pytest.raises(ValueError, match="channels 2"):
        array_to_img(np.zeros((2, 2, 2)))


def test_save_img_round_trips(tmp_path):
    pixels = np.random.RandomState(0).randint(0, 256, (5, 4, 3)).astype("float32")
    save_img(tmp_path / "x.png", pixels, scale=False)
    loaded = load_img(str(tmp_path / "x.png"))
    assert loaded.size == (4, 5)
    np.testing.assert_array_equal(img_to_array(loaded), pixels)
    np.testing.assert_array_equal(img_to_array(loaded, data_format="channels_first"),
                                  pixels.transpose(2, 0, 1))
    buffer = io.BytesIO()
    save_img(buffer, pixels[..., :1], file_format="png", scale=False)
    buffer.seek(0)
    gray = load_img(buffer, color_mode="grayscale", target_size=(10, 8))
    assert gray.mode == "L" and gray.size == (8, 10)
    with pytest.warns(UserWarning, match="RGBA"):
        save_img(tmp_path / "y.jpg", np.zeros((3, 3, 4)), file_format="jpg")
    assert load_img(tmp_path / "y.jpg").mode == "RGB"


def test_bad_arguments(images):
    path = os.path.join(images, "cats", "a.png")
    with pytest.raises(ValueError, match="color_mode"):
        load_img(path, color_mode="cmyk")
    with pytest.raises(ValueError, match="interpolation"):
        load_img(path, target_size=(2, 2), interpolation="gaussian")
    with pytest.raises(TypeError, match="path or an io.BytesIO"):
        load_img(3)
    with pytest.raises(ValueError, match="data_format"):
        img_to_array(load_img(path), data_format="channels_middle")


def test_missing_pillow_names_the_extra(monkeypatch, images):
    monkeypatch.setitem(sys.modules, "PIL", None)   # `from PIL import Image` now fails
    for call in (lambda: load_img(os.path.join(images, "cats", "a.png")),
                 lambda: array_to_img(np.zeros((2, 2, 3))),
                 lambda: save_img(os.path.join(images, "z.png"), np.zeros((2, 2, 3)))):
        with pytest.raises(ImportError, match=r"pip install 'lamina\[image\]'"):
            call()


def test_data_format_none_reads_lamina_config_image_data_format():
    image = np.arange(2 * 3 * 4, dtype="float32").reshape(3, 2, 4) * 10   # channels first
    lamina.config.set_image_data_format("channels_first")
    try:
        array = img_to_array(array_to_img(image, scale=False))
    finally:
        lamina.config.set_image_data_format("channels_last")
    assert array.shape == (3, 2, 4)
    np.testing.assert_array_equal(array, image)

"""RandomContrast, RandomBrightness, RandomGrayscale and AutoContrast
(``layers/preprocessing/image_color.py``) against Keras 3.15 (TensorFlow backend) with
fixed factors, plus the identity at inference, seeding and the range of the draws."""

import numpy as np
import pytest

from lamina import layers

from harness.images import IMAGES, REFERENCES, assert_matches_keras, check_layer_contract

SMALL = REFERENCES["small"]     # (2, 4, 4, 3) in [0, 1)


def test_fixed_factors_match_keras():
    factors = np.array([0.5, 1.7], "float32")
    assert_matches_keras("contrast", layers.RandomContrast(0.9).adjust(IMAGES, factors))
    assert_matches_keras("contrast_unit", layers.RandomContrast(
        0.9, value_range=(0, 1)).adjust(SMALL, factors), atol=1e-6)
    assert_matches_keras("brightness", layers.RandomBrightness((0.2, 0.2))(IMAGES,
                                                                         training=True))
    assert_matches_keras("brightness_unit", layers.RandomBrightness(
        (-0.3, -0.3), value_range=(0, 1))(SMALL, training=True), atol=1e-6)
    assert_matches_keras("grayscale", layers.RandomGrayscale(1.0)(IMAGES, training=True))
    assert_matches_keras("auto_contrast", layers.AutoContrast()(REFERENCES["auto_contrast_input"]))
    assert_matches_keras("auto_contrast_unit",
                         layers.AutoContrast(value_range=(0, 1))(SMALL * 0.5 + 0.2), atol=1e-6)


def test_factors_as_keras_reads_them():
    assert layers.RandomContrast(0.5).factor == [0.0, 0.5]     # Keras: lower bound 0
    assert layers.RandomContrast((0.2, 0.6)).factor == [0.2, 0.6]
    assert layers.RandomBrightness(0.3).factor == [-0.3, 0.3]
    assert layers.RandomBrightness((0.4, -0.1)).value_range == [0.0, 255.0]
    assert layers.RandomBrightness((0.4, -0.1)).factor == [-0.1, 0.4]


MAKERS = {
    "RandomContrast": lambda seed=None: layers.RandomContrast(0.6, seed=seed),
    "RandomBrightness": lambda seed=None: layers.RandomBrightness(0.3, seed=seed),
    "RandomGrayscale": lambda seed=None: layers.RandomGrayscale(0.5, seed=seed),
}


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_inference_identity_seeded_and_fresh_per_batch(name):
    make = MAKERS[name]
    batch = np.repeat(IMAGES, 8, axis=0)
    np.testing.assert_array_equal(make(seed=1)(batch, training=False).numpy(), batch)
    first, second = make(seed=4), make(seed=4)
    a = first(batch, training=True).numpy()
    np.testing.assert_array_equal(a, second(batch, training=True).numpy())
    assert not np.array_equal(a, first(batch, training=True).numpy())


def test_draws_stay_in_their_ranges():
    contrast = layers.RandomContrast((0.2, 0.5), seed=0)
    flat = np.zeros((500, 2, 1, 1), "float32")
    flat[:, 1] = 100.0   # mean 50: contrast factor f maps 100 to 50 + 50 f
    factors = (contrast(flat, training=True).numpy()[:, 1, 0, 0] - 50) / 50
    assert 0.8 <= factors.min() < 0.85 and 1.45 < factors.max() <= 1.5
    brightness = layers.RandomBrightness((-0.1, 0.2), value_range=(0, 100), seed=0)
    shifted = brightness(np.full((500, 1, 1, 1), 50.0, "float32"), training=True).numpy()
    assert 40 <= shifted.min() < 41 and 69 < shifted.max() <= 70
    gray = layers.RandomGrayscale(0.25, seed=0)(np.repeat(IMAGES[:1], 400, axis=0),
                                                  training=True).numpy()
    chosen = np.all(gray[..., :1] == gray, axis=(1, 2, 3))
    assert 70 < chosen.sum() < 130
    np.testing.assert_array_equal(layers.RandomGrayscale(0.0)(IMAGES, training=True).numpy(),
                                  IMAGES)


def test_auto_contrast_channels_first_and_integer_images():
    source = REFERENCES["auto_contrast_input"]
    first = layers.AutoContrast(data_format="channels_first")(source.transpose(0, 3, 1, 2))
    assert_matches_keras("auto_contrast", first.numpy().transpose(0, 2, 3, 1))
    as_int = layers.AutoContrast()(np.array([[[[10], [20]], [[30], [40]]]], "uint8")).numpy()
    assert as_int.dtype == np.uint8
    np.testing.assert_array_equal(as_int[0, :, :, 0], [[0, 85], [170, 255]])


@pytest.mark.parametrize("name", sorted(MAKERS) + ["AutoContrast"])
def test_config_models_fit_and_saving(name, tmp_path):
    make = MAKERS.get(name, lambda seed=None: layers.AutoContrast())
    check_layer_contract(lambda: make(seed=2), tmp_path)


def test_bad_arguments_raise_naming_the_layer_and_argument():
    with pytest.raises(ValueError, match=r"RandomContrast.*factor.*\[0.0, 1.0\].*factor=-0.5"):
        layers.RandomContrast(-0.5)
    with pytest.raises(ValueError, match=r"RandomBrightness.*value_range.*255"):
        layers.RandomBrightness(0.1, value_range=255)
    with pytest.raises(ValueError, match=r"RandomGrayscale.*factor.*1.5"):
        layers.RandomGrayscale(1.5)
    with pytest.raises(ValueError, match=r"RandomGrayscale.*3 channels.*got 2"):
        layers.RandomGrayscale(1.0)(np.zeros((1, 2, 2, 2)), training=True)
    with pytest.raises(ValueError, match=r"AutoContrast.*value_range"):
        layers.AutoContrast(value_range=(0, 1, 2))

"""RandomFlip, RandomRotation, RandomZoom, RandomTranslation and RandomCrop
(``layers/preprocessing/image_geometry.py``): Keras 3.15's outputs (TensorFlow backend) for
fixed draws, the identity at inference, seeded reproducibility, fresh draws per batch and
the range of the draws."""

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.layers.preprocessing.image_geometry import rotation_zoom_matrix

from harness.images import IMAGES, REFERENCES, assert_matches_keras, check_layer_contract

FILLS = ("reflect", "wrap", "constant", "nearest")


@pytest.mark.parametrize("interpolation", ["bilinear", "nearest"])
@pytest.mark.parametrize("fill_mode", FILLS)
def test_fixed_affine_transforms_match_keras(fill_mode, interpolation):
    key = f"{fill_mode}_{interpolation}"
    kwargs = dict(fill_mode=fill_mode, interpolation=interpolation, fill_value=3.0)
    cases = {
        "rotate90": layers.RandomRotation((0.25, 0.25), **kwargs),   # exactly 90 degrees
        "rotate36": layers.RandomRotation((0.1, 0.1), **kwargs),
        "zoom": layers.RandomZoom((0.3, 0.3), (-0.2, -0.2), **kwargs),
        "zoom_in": layers.RandomZoom((-0.4, -0.4), **kwargs),
        "translate": layers.RandomTranslation((0.2, 0.2), (-0.3, -0.3), **kwargs),
        "translate_far": layers.RandomTranslation((-1.0, -1.0), (0.9, 0.9), **kwargs)}
    for name, layer in cases.items():
        assert_matches_keras(f"{name}_{key}", layer(IMAGES, training=True))


def test_rotation_channels_first_unbatched_and_exact_quarter_turn():
    first = layers.RandomRotation((0.1, 0.1), data_format="channels_first")
    assert_matches_keras("rotate_channels_first",
                         first(IMAGES.transpose(0, 3, 1, 2), training=True))
    single = layers.RandomRotation((0.1, 0.1))(IMAGES[0], training=True)
    np.testing.assert_allclose(single.numpy(), REFERENCES["rotate36_reflect_bilinear"][0],
                               atol=2e-4)
    square = IMAGES[:, :5, :5]
    quarter = layers.RandomRotation((0.25, 0.25), interpolation="nearest")(square,
                                                                          training=True)
    np.testing.assert_array_equal(quarter.numpy(), np.rot90(square, 1, axes=(1, 2)))


@pytest.mark.parametrize("mode", ["horizontal", "vertical", "horizontal_and_vertical"])
def test_flip_matches_keras_and_draws_per_image(mode):
    flip = layers.RandomFlip(mode, seed=3)
    assert_matches_keras(f"flip_{mode}", flip.flip(IMAGES, [True, False]))
    batch = np.repeat(IMAGES[:1], 64, axis=0)
    flipped = flip.flip(batch, np.ones(64, bool))
    out = flip(batch, training=True).numpy()
    is_flipped = np.all(out == flipped, axis=(1, 2, 3))
    assert np.all(is_flipped | np.all(out == batch, axis=(1, 2, 3)))
    assert 10 < is_flipped.sum() < 54      # about half, one draw per image


def test_random_crop_matches_keras_and_stays_inside():
    crop = layers.RandomCrop(3, 4, seed=1)
    windows = {(top, left): IMAGES[:, top:top + 3, left:left + 4]
               for top in range(3) for left in range(4)}
    np.testing.assert_array_equal(windows[(1, 2)], REFERENCES["crop_at_1_2"])
    seen = set()
    for _ in range(40):
        out = crop(IMAGES, training=True).numpy()
        match = [key for key, window in windows.items() if np.array_equal(out, window)]
        assert len(match) == 1                # one window for the whole batch, as Keras
        seen.add(match[0])
    assert len(seen) > 6
    # inference (and images too small): the aspect-ratio crop resized, Keras' documented rule
    assert_matches_keras("center_crop_6x9", layers.RandomCrop(6, 9)(IMAGES, training=True))
    assert layers.RandomCrop(3, 4)(IMAGES, training=False).shape == (2, 3, 4, 3)
    assert layers.RandomCrop(3, 4).compute_output_shape((None, 5, 7, 3)) == (None, 3, 4, 3)


MAKERS = {
    "RandomFlip": lambda seed=None: layers.RandomFlip(seed=seed),
    "RandomRotation": lambda seed=None: layers.RandomRotation(0.2, seed=seed),
    "RandomZoom": lambda seed=None: layers.RandomZoom(0.3, (-0.2, 0.4), seed=seed),
    "RandomTranslation": lambda seed=None: layers.RandomTranslation(
        0.2, (-0.1, 0.3), fill_mode="constant", seed=seed),
    "RandomCrop": lambda seed=None: layers.RandomCrop(4, 5, seed=seed),
}


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_inference_identity_seeded_reproducible_fresh_per_batch(name):
    make = MAKERS[name]
    if name != "RandomCrop":   # RandomCrop's inference output is its center window
        np.testing.assert_array_equal(make(seed=1)(IMAGES, training=False).numpy(), IMAGES)
    first, second = make(seed=7), make(seed=7)
    a, b = first(IMAGES, training=True).numpy(), second(IMAGES, training=True).numpy()
    np.testing.assert_array_equal(a, b)
    batches = [first(IMAGES, training=True).numpy() for _ in range(4)]
    assert any(not np.array_equal(a, later) for later in batches)
    lamina.utils.set_random_seed(5)
    c = make()(IMAGES, training=True).numpy()
    lamina.utils.set_random_seed(5)
    np.testing.assert_array_equal(make()(IMAGES, training=True).numpy(), c)


def test_draws_stay_in_their_ranges():
    rotation = layers.RandomRotation((-0.1, 0.2), seed=0)
    assert rotation.factor == [-0.1, 0.2]
    matrices = rotation.transforms(2000, 5, 7)
    angles = np.degrees(np.arctan2(matrices[:, 3], matrices[:, 0]))
    assert -36.01 <= angles.min() < -30 and 66 < angles.max() <= 72.01
    zoom = layers.RandomZoom((-0.5, 0.25), seed=0).transforms(2000, 5, 7)
    assert np.all(zoom[:, 0] == zoom[:, 4])          # width_factor=None keeps the aspect
    assert 0.5 <= zoom[:, 0].min() < 0.55 and 1.2 < zoom[:, 0].max() <= 1.25
    shifts = layers.RandomTranslation(0.5, (0.1, 0.2), seed=0).transforms(2000, 10, 20)
    assert -5 <= -shifts[:, 5].max() < -4.5 and 4.5 < -shifts[:, 5].min() <= 5
    assert 2 <= -shifts[:, 2].max() and -shifts[:, 2].min() <= 4


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_config_models_fit_and_saving(name, tmp_path):
    check_layer_contract(lambda: MAKERS[name](seed=2), tmp_path)


def test_bad_arguments_raise_naming_the_layer_and_argument():
    with pytest.raises(ValueError, match=r"RandomFlip.*mode.*'diagonal'"):
        layers.RandomFlip("diagonal")
    with pytest.raises(ValueError, match=r"RandomRotation.*factor.*factor=2"):
        layers.RandomRotation(2)
    with pytest.raises(ValueError, match=r"RandomRotation.*fill_mode.*'mirror'"):
        layers.RandomRotation(0.1, fill_mode="mirror")
    with pytest.raises(ValueError, match=r"RandomZoom.*interpolation.*'bicubic'"):
        layers.RandomZoom(0.1, interpolation="bicubic")
    with pytest.raises(ValueError, match=r"RandomZoom.*height_factor.*\(-1.0, 1.0\]"):
        layers.RandomZoom(-1.0)
    with pytest.raises(ValueError, match=r"RandomTranslation.*width_factor.*\(0.1, 0.2, 0.3\)"):
        layers.RandomTranslation(0.1, (0.1, 0.2, 0.3))
    with pytest.raises(ValueError, match=r"RandomCrop.*width, a positive int"):
        layers.RandomCrop(3, -1)
    with pytest.raises(ValueError, match=r"RandomFlip.*rank 3 .* or 4"):
        layers.RandomFlip()(np.zeros((2, 3, 4, 5, 1)), training=True)


def test_rotation_matrix_turns_about_the_center():
    ramp = np.arange(20.0, dtype="float32").reshape(1, 4, 5, 1)
    matrix = rotation_zoom_matrix(np.float32([np.pi]), np.ones(1, "float32"),
                                  np.ones(1, "float32"), np.zeros(1, "float32"),
                                  np.zeros(1, "float32"), 4, 5)
    out = ops.image.affine_transform(ramp, matrix, "nearest", "constant")
    np.testing.assert_array_equal(ops.convert_to_numpy(out), ramp[:, ::-1, ::-1])

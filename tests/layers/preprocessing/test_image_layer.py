"""The image layers' shared base (``layers/preprocessing/image_layer.py``): rank and dtype
checks, both data formats, Keras' ``training`` default, and the factor arguments."""

import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.layers.preprocessing.image_layer import base_factor, symmetric_factor

from harness.images import IMAGES


def test_training_default_is_keras_true_and_models_pass_false():
    flip = layers.RandomFlip("horizontal", seed=0)
    batch = np.repeat(IMAGES[:1], 32, axis=0)
    assert not np.array_equal(flip(batch).numpy(), batch)   # a bare call augments (Keras)
    model = lamina.Sequential([lamina.Input(IMAGES.shape[1:]), flip])
    np.testing.assert_array_equal(model.predict(batch, verbose=0), batch)
    np.testing.assert_array_equal(model.predict_on_batch(batch), batch)


def test_both_data_formats_and_ranks_agree():
    rotate = dict(factor=(0.1, 0.1), fill_mode="constant")
    last = layers.RandomRotation(**rotate)(IMAGES, training=True).numpy()
    first = layers.RandomRotation(**rotate, data_format="channels_first")(
        IMAGES.transpose(0, 3, 1, 2), training=True).numpy()
    np.testing.assert_allclose(first.transpose(0, 2, 3, 1), last, atol=1e-5)
    single = layers.RandomRotation(**rotate)(IMAGES[1], training=True).numpy()
    np.testing.assert_allclose(single, last[1], atol=1e-5)
    assert layers.Resizing(3, 4, data_format="channels_first").compute_output_shape(
        (None, 3, 5, 7)) == (None, 3, 3, 4)
    assert layers.CenterCrop(3, 4).compute_output_shape((5, 7, 3)) == (3, 4, 3)


def test_outputs_are_floatx_and_non_numeric_input_is_refused():
    assert layers.RandomBrightness(0.1)(IMAGES.astype("uint8")).numpy().dtype == np.float32
    with pytest.raises(ValueError, match=r"RandomFlip.*rank 3 .* or 4.*shape \(7,\)"):
        layers.RandomFlip()(np.zeros(7))
    with pytest.raises(ValueError, match=r"Resizing.*numeric images"):
        layers.Resizing(2, 2)(np.array([[["a"]]], dtype=object))
    with pytest.raises(ValueError, match=r"RandomFlip.*seed.*'x'"):
        layers.RandomFlip(seed="x")


def test_factor_rules_follow_keras():
    layer = layers.Identity()
    assert base_factor(layer, 0.3) == [-0.3, 0.3]
    assert base_factor(layer, (0.4, -0.2)) == [-0.2, 0.4]
    assert base_factor(layer, 0.3, (0.0, 1.0)) == [0.0, 0.3]
    assert symmetric_factor(layer, -0.5, "height_factor") == [-0.5, 0.5]
    assert symmetric_factor(layer, (0.5, 0.1), "height_factor") == [0.1, 0.5]
    for bad in (1.5, (0.1,), "0.1", (2.0, 3.0)):
        with pytest.raises(ValueError, match=r"factor"):
            base_factor(layer, bad)
    with pytest.raises(ValueError, match=r"height_factor.*\(-1.0, 1.0\]"):
        symmetric_factor(layer, (-1.0, 0.5), "height_factor", open_low=True)


def test_data_format_none_reads_lamina_config_image_data_format():
    lamina.config.set_image_data_format("channels_first")
    try:
        flip = layers.RandomFlip(seed=1)
        resize = layers.Resizing(4, 6)
    finally:
        lamina.config.set_image_data_format("channels_last")
    assert flip.data_format == resize.data_format == "channels_first"
    assert resize(np.zeros((1, 3, 8, 8), "float32")).shape == (1, 3, 4, 6)

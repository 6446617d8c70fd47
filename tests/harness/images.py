"""Shared checks of the image preprocessing layer tests: the Keras references
(``tests/data/keras/image_references.npz``, made by ``make_image_references.py``), the
config round trip, and a layer used as the first step of a small CNN (``fit``, ``predict``,
``.h5`` and ``.keras`` save/load)."""

import os

import numpy as np

import lamina
from lamina import layers

from harness.layers import check_config, check_output_shape

REFERENCES = np.load(os.path.join(os.path.dirname(__file__), "..", "data", "keras",
                                  "image_references.npz"))
IMAGES = REFERENCES["images"]          # (2, 5, 7, 3) float32 in [0, 255)


def assert_matches_keras(key, output, atol=2e-4):
    """``output`` (a Tensor or array) equals the Keras reference ``key`` (to float32
    rounding of values up to 255)."""
    got = output.numpy() if hasattr(output, "numpy") else np.asarray(output)
    expected = REFERENCES[key]
    assert got.shape == expected.shape, (key, got.shape, expected.shape)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=atol, err_msg=key)


def check_layer_contract(make_layer, tmp_path, x=IMAGES):
    """``make_layer()``'s config round-trips, its output shape is declared, and it works
    as the first layer of a CNN: ``fit`` trains, ``predict`` is reproducible, and the
    model saved as ``.h5`` and ``.keras`` reloads with the same config and predictions."""
    x = np.asarray(x, dtype="float32")
    check_config(make_layer(), x)
    check_output_shape(make_layer(), x)
    lamina.utils.set_random_seed(0)
    model = lamina.Sequential([lamina.Input(x.shape[1:]), make_layer(),
                               layers.Conv2D(2, 2, padding="same", activation="relu"),
                               layers.GlobalAveragePooling2D(), layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
    history = model.fit(np.repeat(x, 4, axis=0) / 255, np.arange(8.0), epochs=2, batch_size=4,
                        verbose=0)
    assert np.all(np.isfinite(history.history["loss"]))
    expected = model.predict(x / 255, verbose=0)
    for suffix in (".h5", ".keras"):
        model.save(tmp_path / f"model{suffix}")
        loaded = lamina.load_model(tmp_path / f"model{suffix}")
        assert type(loaded.layers[0]) is type(model.layers[0])
        assert loaded.layers[0].get_config() == model.layers[0].get_config()
        np.testing.assert_allclose(loaded.predict(x / 255, verbose=0), expected, rtol=1e-5,
                                   atol=1e-6)

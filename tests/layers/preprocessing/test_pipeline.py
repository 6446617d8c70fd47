"""Pipeline: layers applied in order (training on by default, as Keras; masks passed on),
Keras' config, a .keras file layout as Keras', gradients, shapes, models and errors."""

import numpy as np
import pytest

import lamina
from lamina import layers

from harness.layers import (test_config_round_trip_and_output_shape,  # noqa: F401
                            test_gradients_match_finite_differences,
                            test_inside_sequential_and_functional_models)
from harness.saving import saved_weight_paths

RNG = np.random.default_rng(17)


def rand(*shape):
    return RNG.uniform(-1.0, 1.0, size=shape)


def test_layers_run_in_order_with_training_on_by_default():
    x = RNG.uniform(size=(4, 6, 6, 1)).astype("float32")
    pipeline = layers.Pipeline([layers.Rescaling(2.0, offset=-1.0),
                                layers.RandomFlip(seed=3)])
    assert pipeline.layers[0].scale == 2.0
    np.testing.assert_allclose(pipeline(x, training=False).numpy(), 2 * x - 1, rtol=1e-6)
    flipped = pipeline(x).numpy()             # training=True unless told otherwise
    assert not np.allclose(flipped, 2 * x - 1)
    assert pipeline.compute_output_shape((None, 6, 6, 1)) == (None, 6, 6, 1)


def test_masks_pass_through_the_layers():
    ids = np.array([[3, 1, 0, 0], [2, 0, 0, 0]])
    embedding = layers.Embedding(5, 3, mask_zero=True)
    pipeline = layers.Pipeline([layers.Identity(), layers.LSTM(2, return_sequences=True)])
    direct = layers.LSTM(2, return_sequences=True)
    direct(embedding(ids))
    pipeline(embedding(ids), mask=ids != 0)
    direct.set_weights(pipeline.get_weights())
    np.testing.assert_allclose(pipeline(embedding(ids), mask=ids != 0).numpy(),
                               direct(embedding(ids), mask=ids != 0).numpy(), atol=1e-6)
    masked = embedding(ids)
    np.testing.assert_array_equal(pipeline.compute_mask(masked, ids != 0), ids != 0)


def test_config_is_keras_and_the_file_layout_too(tmp_path):
    """Keras' config ``{"layers", "name"}`` and weights under
    ``layers/pipeline/layers/<class>`` (a Keras 3.15 file with a Rescaling/RandomFlip
    pipeline loaded into lamina and lamina's re-saved one into Keras, both to identical
    predictions, when this was written)."""
    pipeline = layers.Pipeline([layers.Rescaling(0.5), layers.Dense(2, name="inner")],
                               name="pipeline")
    config = pipeline.get_config()
    assert set(config) == {"layers", "name"}
    assert [entry["class_name"] for entry in config["layers"]] == ["Rescaling", "Dense"]
    inputs = lamina.Input((3,))
    model = lamina.Model(inputs, pipeline(inputs))
    path, names = saved_weight_paths(model, tmp_path)
    assert "layers/pipeline/layers/dense/vars/1" in names
    x = rand(2, 3).astype("float32")
    np.testing.assert_allclose(lamina.load_model(path).predict(x, verbose=0),
                               model.predict(x, verbose=0), atol=1e-6)


def test_bad_layers_raise():
    with pytest.raises(ValueError, match="Pipeline.*list of Layer"):
        layers.Pipeline(layers.Dense(2))
    with pytest.raises(ValueError, match="'layers'"):
        layers.Pipeline.from_config({"name": "p"})


CASES = [
    (lambda: layers.Pipeline([layers.Dense(3, activation="tanh"), layers.Rescaling(0.5, 0.1),
                              layers.Dense(2)]), (3, 4)),
    (lambda: layers.Pipeline([layers.Dropout(0.5), layers.Dense(2)]), (2, 3)),
]
CASE_IDS = ["dense_rescaling_dense", "dropout_dense"]

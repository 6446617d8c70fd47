"""Adaptive pooling layers (``layers/adaptive_pooling.py``): the op's numbers in either
layout, Keras' default names and config keys, a Keras-style config loading, gradients,
config round trips, shapes, models and bad arguments."""

import numpy as np
import pytest

import lamina
from lamina import layers, ops

from harness.layers import (  # noqa: F401  (the shared tests of CASES, collected here)
    test_config_round_trip_and_output_shape, test_gradients_match_finite_differences,
    test_inside_sequential_and_functional_models)

RNG = np.random.default_rng(17)


def rand(*shape):
    return RNG.uniform(-1.0, 1.0, size=shape)


CASES = [
    (lambda: layers.AdaptiveAveragePooling1D(3), (2, 7, 2)),
    (lambda: layers.AdaptiveMaxPooling1D(4, data_format="channels_first"), (2, 2, 6)),
    (lambda: layers.AdaptiveAveragePooling2D((2, 3)), (2, 5, 7, 2)),
    (lambda: layers.AdaptiveMaxPooling2D(2, data_format="channels_first"), (1, 2, 5, 4)),
    (lambda: layers.AdaptiveAveragePooling3D((1, 2, 3), data_format="channels_first"),
     (1, 2, 3, 4, 5)),
    (lambda: layers.AdaptiveMaxPooling3D(2), (1, 3, 4, 5, 2)),
]
CASE_IDS = ["avg1d", "max1d_cf", "avg2d", "max2d_cf", "avg3d_cf", "max3d"]

CLASSES = {(1, "average"): layers.AdaptiveAveragePooling1D,
           (2, "average"): layers.AdaptiveAveragePooling2D,
           (3, "average"): layers.AdaptiveAveragePooling3D,
           (1, "max"): layers.AdaptiveMaxPooling1D, (2, "max"): layers.AdaptiveMaxPooling2D,
           (3, "max"): layers.AdaptiveMaxPooling3D}


@pytest.mark.parametrize("rank,mode", list(CLASSES), ids=str)
@pytest.mark.parametrize("data_format", ["channels_last", "channels_first"])
def test_layer_is_the_op_with_keras_names_and_config(rank, mode, data_format):
    x = rand(2, *range(4, 4 + rank), 3).astype("float32")
    if data_format == "channels_first":
        x = np.moveaxis(x, -1, 1)
    layer = CLASSES[rank, mode](3, data_format=data_format)
    op = ops.adaptive_average_pool if mode == "average" else ops.adaptive_max_pool
    got = layer(x)
    np.testing.assert_array_equal(got.numpy(), op(x, 3, data_format=data_format).numpy())
    spatial = (3,) * rank
    assert got.shape == ((2, *spatial, 3) if data_format == "channels_last" else
                         (2, 3, *spatial))
    # Keras 3.15: AdaptiveMaxPooling1D(3).get_config() ->
    #   {'name': 'adaptive_max_pooling1d', 'trainable': True, 'dtype': ...,
    #    'output_size': (3,), 'data_format': 'channels_last'}
    config = layer.get_config()
    assert layer.name.startswith(f"adaptive_{mode}_pooling{rank}d")
    assert {"name", "trainable", "dtype", "output_size", "data_format"} <= set(config)
    assert config["output_size"] == [3] * rank and config["data_format"] == data_format
    assert layer.weights == []


def test_keras_config_loads_and_default_layout():
    keras_config = {"name": "pool", "trainable": True, "output_size": [2, 3],
                    "data_format": "channels_last",
                    "dtype": {"module": "keras", "class_name": "DTypePolicy",
                              "config": {"name": "float32"}, "registered_name": None}}
    layer = lamina.layers.deserialize({"class_name": "AdaptiveAveragePooling2D",
                                       "config": keras_config})
    assert layer.output_size == (2, 3) and layer.name == "pool"
    assert layers.AdaptiveMaxPooling2D(4).data_format == "channels_last"
    assert layers.AdaptiveMaxPooling2D([2, 3]).compute_output_shape((None, 5, 6, 2)) == (
        None, 2, 3, 2)


def test_model_with_any_input_size_trains():
    model = lamina.Sequential([lamina.Input((None, None, 2)), layers.Conv2D(4, 3),
                               layers.AdaptiveAveragePooling2D(2), layers.Flatten(),
                               layers.Dense(1)])
    model.compile("adam", "mse")
    for size in (7, 10):
        x = rand(8, size, size, 2).astype("float32")
        history = model.fit(x, x.mean(axis=(1, 2, 3)), epochs=3, verbose=0)
        assert np.isfinite(history.history["loss"]).all()
    assert model.predict(rand(1, 13, 9, 2), verbose=0).shape == (1, 1)


def test_bad_arguments_name_the_layer():
    with pytest.raises(ValueError, match="adaptive_average_pooling2d.*output_size.*got "
                                         "\\(1, 2, 3\\)"):
        layers.AdaptiveAveragePooling2D((1, 2, 3))
    with pytest.raises(ValueError, match="output_size"):
        layers.AdaptiveMaxPooling1D(0)
    with pytest.raises(ValueError, match="data_format"):
        layers.AdaptiveMaxPooling3D(2, data_format="NDHWC")
    with pytest.raises(ValueError, match="expects input"):
        layers.AdaptiveMaxPooling2D(2)(np.ones((2, 4, 1)))

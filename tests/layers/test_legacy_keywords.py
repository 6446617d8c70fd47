"""Legacy shape keywords on layers (layers/legacy_keywords.py): ``input_shape=`` (with
Keras 3's warning), ``input_dim=`` and ``batch_input_shape=`` on the first layer of a
Sequential model build its Input; classes that name ``input_dim`` themselves keep it."""

import numpy as np
import pytest

import lamina
from lamina import layers


def test_input_shape_and_input_dim_build_the_sequential_input_with_keras_warning():
    with pytest.warns(UserWarning, match="Do not pass an `input_shape`/`input_dim`"):
        by_shape = lamina.Sequential([layers.Dense(3, input_shape=(4,)), layers.Dense(1)])
    with pytest.warns(UserWarning, match="Do not pass an `input_shape`/`input_dim`"):
        by_dim = lamina.Sequential([layers.Dense(3, input_dim=4), layers.Dense(1)])
    for model in (by_shape, by_dim):
        assert model.built and model.input_shape == (None, 4)
        assert model.output_shape == (None, 1) and model.count_params() == 19


def test_batch_input_shape_keeps_the_batch_size_and_round_trips():
    lstm = layers.LSTM(2, batch_input_shape=(3, 5, 4))
    model = lamina.Sequential([lstm])
    assert model.input_shape == (3, 5, 4)
    config = lstm.get_config()
    assert config["batch_input_shape"] == [3, 5, 4]
    assert layers.LSTM.from_config(config).batch_input_shape == (3, 5, 4)


def test_classes_naming_input_dim_keep_their_own_argument():
    assert layers.Embedding(input_dim=7, output_dim=2).input_dim == 7

    class Linear(layers.Layer):          # the Keras guide's Linear(units, input_dim)
        def __init__(self, units=32, input_dim=32):
            super().__init__()
            self.w = self.add_weight(shape=(input_dim, units), initializer="ones")

    assert Linear(4, input_dim=2).w.shape == (2, 4)
    with pytest.raises(TypeError):
        layers.Flatten(unknown_keyword=1)
    assert np.asarray(layers.Flatten()(np.ones((2, 2, 2), "float32"))).shape == (2, 4)

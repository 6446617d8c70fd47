"""The TimeDistributed wrapper (``layers/wrappers.py``): the wrapped layer on every step,
configs, errors, gradients, shapes, models and training."""

import numpy as np
import pytest

import lamina
from lamina import layers

from harness.layers import (  # noqa: F401  (the shared tests of CASES, collected here)
    test_config_round_trip_and_output_shape, test_gradients_match_finite_differences,
    test_inside_sequential_and_functional_models)

RNG = np.random.default_rng(23)


def rand(*shape):
    """Float64 data, uniform in [-1, 1)."""
    return RNG.uniform(-1.0, 1.0, size=shape)


def test_time_distributed_applies_the_layer_to_every_step():
    x = rand(2, 4, 5, 5, 3).astype("float32")
    conv = layers.Conv2D(2, 3, bias_initializer="random_normal")
    wrapper = layers.TimeDistributed(conv)
    got = wrapper(x).numpy()
    assert got.shape == (2, 4, 3, 3, 2)
    for t in range(4):
        np.testing.assert_allclose(got[:, t], conv(x[:, t]).numpy(), atol=1e-6)
    assert wrapper.weights == conv.weights and len(wrapper.trainable_weights) == 2
    assert wrapper.compute_output_shape((None, None, 5, 5, 3)) == (None, None, 3, 3, 2)

    dropout = layers.TimeDistributed(layers.Dropout(0.5))
    assert np.count_nonzero(dropout(np.ones((4, 5, 6), "float32"), training=True).numpy()) < 120


def test_time_distributed_config_and_errors():
    wrapper = layers.TimeDistributed(layers.Dense(3, name="inner_dense"))
    config = wrapper.get_config()
    assert config["layer"]["class_name"] == "Dense"
    assert config["layer"]["config"]["name"] == "inner_dense"
    with pytest.raises(ValueError, match="Layer 'td0' expects input of rank >= 3"):
        layers.TimeDistributed(layers.Dense(2), name="td0")(rand(2, 3).astype("float32"))
    with pytest.raises(ValueError, match="Layer 'td1' .*Layer instance"):
        layers.TimeDistributed("dense", name="td1")


# ------------------------------------------------------------------ shared checks
CASES = [
    (lambda: layers.TimeDistributed(layers.Dense(3, activation="tanh",
                                                 bias_initializer="random_normal")), (2, 3, 4)),
    (lambda: layers.TimeDistributed(layers.Conv1D(2, 2)), (2, 2, 4, 2)),
]
CASE_IDS = ["td_dense", "td_conv"]


def test_time_distributed_trains_in_a_model():
    lamina.utils.set_random_seed(0)
    x = RNG.standard_normal((32, 5, 3)).astype("float32")
    y = x @ np.array([[1.0], [-2.0], [0.5]], dtype="float32")
    model = lamina.Sequential([lamina.Input((5, 3)), layers.TimeDistributed(layers.Dense(1))])
    model.compile(lamina.optimizers.Adam(0.05), "mse")
    history = model.fit(x, y, epochs=30, batch_size=8, verbose=0)
    assert history.history["loss"][-1] < 0.05 * history.history["loss"][0]


# ------------------------------------------------------------------ Wrapper
class Doubled(layers.Wrapper):
    """A user's wrapper, as Keras documents them: only ``call``."""

    def call(self, inputs):
        return self.layer(inputs) * 2.0


def test_wrapper_is_the_public_base_with_keras_config():
    """``keras.layers.Wrapper(layer)``: builds the wrapped layer, owns its weights, holds
    it in the config under ``"layer"``; TimeDistributed is one (Bidirectional, as in Keras
    3, is not)."""
    assert issubclass(layers.TimeDistributed, layers.Wrapper)
    assert not issubclass(layers.Bidirectional, layers.Wrapper)
    dense = layers.Dense(3, name="inner")
    wrapper = Doubled(dense, name="doubled")
    x = rand(2, 4).astype("float32")
    np.testing.assert_allclose(wrapper(x).numpy(), 2 * dense(x).numpy(), rtol=1e-6)
    assert wrapper.weights == dense.weights
    config = wrapper.get_config()
    assert set(config) == {"name", "trainable", "dtype", "layer"}
    assert config["layer"]["class_name"] == "Dense"
    clone = Doubled.from_config(config)
    assert clone.layer.get_config() == dense.get_config()
    with pytest.raises(ValueError, match="Layer 'w' \\(Doubled\\) needs a Layer instance"):
        Doubled("dense", name="w")

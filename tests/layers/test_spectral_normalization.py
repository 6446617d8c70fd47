"""SpectralNormalization: Keras 3's outputs and updated weights after a training call
(Dense, Conv2D, two power iterations), inference unchanged, Keras' weight order and file
layout, the spectral norm driven to 1, penalties counted once, gradients, configs, shapes,
models and errors."""

import h5py
import numpy as np
import pytest

import lamina
from lamina import layers

from harness.layers import (test_config_round_trip_and_output_shape,  # noqa: F401
                            test_gradients_match_finite_differences,
                            test_inside_sequential_and_functional_models)
from harness.more_keras_references import case_id, check_more_against_keras, more_cases
from harness.saving import saved_weight_paths

RNG = np.random.default_rng(19)


def rand(*shape):
    return RNG.uniform(-1.0, 1.0, size=shape)


@pytest.mark.parametrize("case", more_cases("SpectralNormalization"), ids=case_id)
def test_matches_keras(case):
    """Keras' output and, after a training call, its kernel and vector_u."""
    check_more_against_keras(case)


def test_weights_as_keras_and_the_norm_goes_to_one():
    layer = layers.SpectralNormalization(layers.Dense(4, name="dense"), power_iterations=3,
                                         name="sn")
    x = rand(5, 6).astype("float32")
    layer(x)
    assert [(w.name, w.shape, w.trainable) for w in layer.weights] == [
        ("kernel", (6, 4), True), ("vector_u", (1, 4), False), ("bias", (4,), True)]
    assert layer.weights[0].path == "sn/dense/kernel"
    before = layer.get_weights()
    np.testing.assert_array_equal(layer(x, training=False).numpy(), layer.layer(x).numpy())
    assert all(np.array_equal(a, b) for a, b in zip(before, layer.get_weights()))
    for _ in range(20):
        layer(x, training=True)
    assert abs(np.linalg.svd(layer.kernel.numpy(), compute_uv=False)[0] - 1.0) < 1e-3


def test_power_iteration_norms_floor_at_the_configured_epsilon():
    # Keras' normalize(x, axis=None) multiplies by min(1 / ||x||, 1 / backend.epsilon())
    layer = layers.SpectralNormalization(layers.Dense(3, kernel_initializer="ones"))
    layer(np.ones((1, 2), "float32"))           # built, not normalized
    u = layer.vector_u.numpy().copy()
    previous = lamina.config.epsilon()
    lamina.config.set_epsilon(10.0)
    try:
        layer(np.ones((1, 2), "float32"), training=True)
    finally:
        lamina.config.set_epsilon(previous)
    w = np.ones((2, 3), "float32")

    def normalized(x):
        return x * min(1.0 / np.sqrt(np.sum(x * x)), 1.0 / 10.0)

    v = normalized(u @ w.T)
    u = normalized(v @ w)
    np.testing.assert_allclose(layer.vector_u.numpy(), u, rtol=1e-5)
    np.testing.assert_allclose(layer.kernel.numpy(), w / ((v @ w) @ u.T), rtol=1e-5)


def test_zero_kernel_is_left_alone_and_penalties_count_once():
    layer = layers.SpectralNormalization(layers.Dense(2, kernel_initializer="zeros",
                                                      kernel_regularizer="l2"))
    x = rand(3, 4).astype("float32")
    layer(x, training=True)
    np.testing.assert_array_equal(layer.kernel.numpy(), 0.0)
    assert len(layer.losses) == 1


def test_keras_file_layout_holds_the_kernel_in_both_groups(tmp_path):
    """As Keras' ``save_own_variables``: the wrapper's group holds [kernel, vector_u], the
    wrapped layer's [kernel, bias]; lamina reloads it to the same predictions (a Keras
    3.15 file of this model loaded into lamina and lamina's re-saved one into Keras, both
    to Keras' predictions within 3e-8, when this was written)."""
    inputs = lamina.Input((4,))
    outputs = layers.SpectralNormalization(layers.Dense(3, name="dense"),
                                           name="spectral_normalization")(inputs)
    model = lamina.Model(inputs, outputs)
    path, _ = saved_weight_paths(model, tmp_path)
    with h5py.File(tmp_path / "model.weights.h5", "r") as handle:
        group = handle["layers/spectral_normalization"]
        assert [group["vars"][k].shape for k in ("0", "1")] == [(4, 3), (1, 3)]
        assert [group["layer/vars"][k].shape for k in ("0", "1")] == [(4, 3), (3,)]
    x = rand(2, 4).astype("float32")
    np.testing.assert_allclose(lamina.load_model(path).predict(x, verbose=0),
                               model.predict(x, verbose=0), atol=1e-6)


def test_bad_arguments_raise_naming_the_layer():
    with pytest.raises(ValueError, match="'sn' \\(SpectralNormalization\\) needs "
                                         "power_iterations"):
        layers.SpectralNormalization(layers.Dense(2), power_iterations=0, name="sn")
    with pytest.raises(ValueError, match="'kernel' or 'embeddings'"):
        layers.SpectralNormalization(layers.Dropout(0.1))(rand(2, 3).astype("float32"))
    config = layers.SpectralNormalization(layers.Dense(2), power_iterations=2).get_config()
    assert config["power_iterations"] == 2 and config["layer"]["class_name"] == "Dense"


CASES = [
    (lambda: layers.SpectralNormalization(layers.Dense(3, activation="tanh")), (2, 4)),
    (lambda: layers.SpectralNormalization(layers.Conv1D(2, 3), power_iterations=2),
     (2, 5, 3)),
]
CASE_IDS = ["dense", "conv1d"]

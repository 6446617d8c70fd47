"""Embedding and Masking: lookups, scatter-add gradients, masks, shapes, configs, models
and clear errors."""

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.backends import Tensor

from harness.ops import numerical_gradient

RNG = np.random.default_rng(11)


# ------------------------------------------------------------------ Embedding
def test_lookup_weight_layout_and_default_initializer():
    layer = layers.Embedding(50, 8)
    ids = RNG.integers(0, 50, size=(4, 6)).astype("int32")
    out = layer(ids)
    assert out.shape == (4, 6, 8) and out.dtype == np.float32
    (table,) = layer.get_weights()
    assert [w.name for w in layer.weights] == ["embeddings"] and table.shape == (50, 8)
    assert layer.weights[0].path == f"{layer.name}/embeddings"
    np.testing.assert_array_equal(out.numpy(), table[ids])
    assert np.abs(table).max() <= 0.05 and table.std() > 0.01      # RandomUniform(-.05, .05)
    config = layer.get_config()
    assert config["embeddings_initializer"]["class_name"] == "RandomUniform"
    assert config["embeddings_initializer"]["config"]["minval"] == -0.05


def test_gradient_is_scatter_add_with_repeated_ids(float64):
    layer = layers.Embedding(5, 3)
    ids = np.array([[0, 2, 2], [4, 2, 0]], dtype="int32")
    layer(ids)
    upstream = RNG.standard_normal((2, 3, 3))
    loss = ops.sum(ops.multiply(layer(ids), upstream))
    (gradient,) = lamina.grad(loss, layer.trainable_weights)
    expected = np.zeros((5, 3))
    np.add.at(expected, ids.reshape(-1), upstream.reshape(-1, 3))
    np.testing.assert_allclose(gradient.numpy(), expected, atol=1e-12)

    def loss_value():
        with lamina.no_grad():
            return float(np.sum(layer(ids).numpy() * upstream))

    np.testing.assert_allclose(gradient.numpy(),
                               numerical_gradient(loss_value, layer.embeddings.data),
                               rtol=1e-5, atol=1e-7)


def test_float_ids_are_cast_and_integers_stay_integer():
    layer = layers.Embedding(10, 2)
    ids = np.array([[1, 9], [3, 0]])
    np.testing.assert_array_equal(layer(ids.astype("float32")).numpy(), layer(ids).numpy())
    np.testing.assert_array_equal(layer(ids.astype("int64")).numpy(), layer(ids).numpy())
    with pytest.raises(ValueError, match="Layer 'frac_ids' .*integer ids"):
        layers.Embedding(10, 2, name="frac_ids")(np.array([[0.5]]))


def test_mask_zero_and_output_shape_with_unknown_time_axis():
    layer = layers.Embedding(7, 3, mask_zero=True)
    ids = np.array([[3, 1, 0, 0], [2, 0, 0, 0]])
    layer(ids)
    np.testing.assert_array_equal(layer.compute_mask(ids).numpy(), ids != 0)
    assert layers.Embedding(7, 3).compute_mask(ids) is None
    assert layer.compute_output_shape((None, None)) == (None, None, 3)
    assert layer.compute_output_shape((None, 4, 2)) == (None, 4, 2, 3)
    symbolic = layer(lamina.Input((None,), dtype="int32"))
    assert symbolic.shape == (None, None, 3) and symbolic.dtype == "float32"


def test_out_of_range_ids_raise_naming_the_layer():
    layer = layers.Embedding(5, 2, name="vocab_probe")
    with pytest.raises(ValueError, match="Layer 'vocab_probe' .*id 5 outside \\[0, 5\\)"):
        layer(np.array([[0, 5]]))
    with pytest.raises(ValueError, match="vocab_probe.*-1"):
        layer(np.array([[-1, 2]]))
    model = lamina.Sequential([lamina.Input((2,), dtype="int32"),
                               layers.Embedding(5, 2, name="model_vocab_probe")])
    with pytest.raises(ValueError, match="model_vocab_probe"):
        model.predict(np.array([[1, 7]]), verbose=0)
    with pytest.raises(ValueError, match="Layer 'dims_probe'"):
        layers.Embedding(0, 3, name="dims_probe")


def test_config_round_trip():
    layer = layers.Embedding(12, 4, mask_zero=True, embeddings_regularizer="l2")
    ids = RNG.integers(0, 12, size=(3, 5))
    out = layer(ids).numpy()
    config = layer.get_config()
    for key in ("input_dim", "output_dim", "embeddings_initializer", "mask_zero",
                "embeddings_regularizer", "activity_regularizer", "embeddings_constraint"):
        assert key in config
    clone = layers.Embedding.from_config(config)
    assert clone.get_config() == config
    clone(ids)
    clone.set_weights(layer.get_weights())
    np.testing.assert_array_equal(clone(ids).numpy(), out)
    assert len(layer.losses) == 1


def test_in_sequential_and_functional_models_and_training():
    lamina.utils.set_random_seed(0)
    ids = RNG.integers(0, 6, size=(64, 3))
    labels = (ids[:, 0] % 2).astype("float32")
    model = lamina.Sequential([lamina.Input((3,), dtype="int32"), layers.Embedding(6, 4),
                               layers.Flatten(), layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer=lamina.optimizers.Adam(0.05), loss="binary_crossentropy",
                  metrics=["accuracy"])
    history = model.fit(ids, labels, epochs=30, batch_size=16, verbose=0)
    assert history.history["accuracy"][-1] == 1.0
    inputs = lamina.Input((3,), dtype="int32")
    embedding = layers.Embedding(6, 4)
    functional = lamina.Model(inputs, embedding(inputs))
    embedding.set_weights(model.layers[0].get_weights())
    np.testing.assert_allclose(functional.predict(ids, verbose=0),
                               model.layers[0](ids).numpy(), atol=1e-7)


# ------------------------------------------------------------------ Masking
def test_masking_zeroes_masked_steps_and_emits_the_mask(float64):
    x = RNG.standard_normal((2, 4, 3))
    x[0, 1] = 0.0
    x[1, 3] = 0.0
    layer = layers.Masking()
    out = layer(x).numpy()
    keep = np.any(x != 0.0, axis=-1)
    np.testing.assert_array_equal(out, x * keep[..., None])
    np.testing.assert_array_equal(layer.compute_mask(x).numpy(), keep)
    x[1, 2] = -1.0
    custom = layers.Masking(mask_value=-1.0)
    np.testing.assert_array_equal(custom(x).numpy()[1, 2], 0.0)
    assert not custom.compute_mask(x).numpy()[1, 2]
    x_tensor = Tensor(x, requires_grad=True)
    upstream = RNG.standard_normal(x.shape)
    (gradient,) = lamina.grad(ops.sum(layers.Masking(-1.0)(x_tensor) * upstream), [x_tensor])
    # Piecewise identity: the gradient passes where the step is kept (finite differences
    # are meaningless exactly at the mask value, where the function jumps).
    np.testing.assert_array_equal(gradient.numpy(),
                                  upstream * np.any(x != -1.0, axis=-1)[..., None])


def test_masking_config_shape_and_models(check_config, check_output_shape, check_models):
    x = RNG.standard_normal((2, 4, 3)).astype("float32")
    x[:, 2] = 0.5
    check_config(layers.Masking(mask_value=0.5), x)
    check_output_shape(layers.Masking(), x)
    check_models(lambda: layers.Masking(0.5), x)


def test_mask_zero_in_sequential_gives_unpadded_result():
    model = lamina.Sequential([lamina.Input((None,), dtype="int32"),
                               layers.Embedding(10, 4, mask_zero=True), layers.LSTM(3)])
    padded = model.predict(np.array([[1, 2, 0, 0]]), verbose=0)
    np.testing.assert_allclose(padded, model.predict(np.array([[1, 2]]), verbose=0), atol=1e-6)


def test_embedding_feeds_lstm_in_functional_model_with_mask():
    inputs = lamina.Input((None,), dtype="int32")
    recurrent = layers.LSTM(3)
    model = lamina.Model(inputs, recurrent(layers.Embedding(10, 4, mask_zero=True)(inputs)))
    padded = model.predict(np.array([[1, 2, 0, 0], [3, 0, 0, 0]]), verbose=0)
    np.testing.assert_allclose(padded[0], model.predict(np.array([[1, 2]]), verbose=0)[0],
                               atol=1e-6)
    np.testing.assert_allclose(padded[1], model.predict(np.array([[3]]), verbose=0)[0],
                               atol=1e-6)
    x_tensor = Tensor(np.array([[1, 2, 0]]))
    assert model(x_tensor).shape == (1, 3)

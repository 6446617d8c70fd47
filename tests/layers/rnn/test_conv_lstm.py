"""ConvLSTM1D/2D/3D (``layers/rnn/conv_lstm.py``): Keras 3.15's outputs on copied weights
(``tests/data/keras/conv_lstm_references.npz``, made by ``make_conv_lstm_references.py``),
a Keras-saved ``.keras`` model, gradients against finite differences, masks, initial and
carried states, dropout, configs, shapes, models, learning and bad arguments."""

import json
from pathlib import Path

import numpy as np
import pytest

import lamina
from lamina import layers

from harness.layers import (  # noqa: F401  (the shared tests of CASES, collected here)
    test_config_round_trip_and_output_shape, test_gradients_match_finite_differences,
    test_inside_sequential_and_functional_models)

DATA = Path(__file__).resolve().parents[2] / "data" / "keras"
REFERENCES = np.load(DATA / "conv_lstm_references.npz")
INDEX = json.loads(str(REFERENCES["cases"]))
RNG = np.random.default_rng(23)


def rand(*shape):
    return RNG.uniform(-1.0, 1.0, size=shape)


CASES = [
    (lambda: layers.ConvLSTM2D(2, 2, padding="same", return_sequences=True), (1, 2, 3, 3, 1)),
    (lambda: layers.ConvLSTM2D(2, (2, 1), data_format="channels_first", go_backwards=True),
     (2, 2, 1, 3, 2)),
    (lambda: layers.ConvLSTM1D(2, 2, strides=2, activation="relu", kernel_initializer="ones"),
     (1, 3, 5, 1)),
    (lambda: layers.ConvLSTM3D(1, 2, recurrent_activation="hard_sigmoid"), (1, 2, 2, 3, 2, 1)),
]
CASE_IDS = ["2d_same_sequences", "2d_channels_first_backwards", "1d_strided_relu", "3d"]


@pytest.mark.parametrize("case", INDEX["cases"], ids=lambda case: case["id"])
def test_matches_keras_on_copied_weights(case):
    name = case["id"]
    layer = getattr(layers, case["class_name"])(**case["kwargs"])
    x = REFERENCES[f"{name}/x"]
    weights = [REFERENCES[f"{name}/w{i}"] for i in range(len(case["weight_paths"]))]
    layer.build(x.shape)
    keras_name = case["weight_paths"][0].split("/")[0]     # lamina's name has a counter
    assert [w.path.replace(layer.name, keras_name, 1) for w in layer.weights] == \
        case["weight_paths"]
    assert [w.shape for w in layer.weights] == [w.shape for w in weights]
    layer.set_weights(weights)
    outputs = layer(x)
    outputs = outputs if isinstance(outputs, list) else [outputs]
    assert len(outputs) == case["outputs"]
    for i, got in enumerate(outputs):
        assert got.dtype == np.float32
        np.testing.assert_allclose(got.numpy(), REFERENCES[f"{name}/y{i}"], atol=1e-5)
    shapes = layer.compute_output_shape(x.shape)
    shapes = shapes if isinstance(shapes, list) else [shapes]
    assert [tuple(s) for s in shapes] == [REFERENCES[f"{name}/y{i}"].shape
                                          for i in range(case["outputs"])]
    assert sorted(layer.get_config()) == case["config_keys"]


def test_keras_file_loads_with_identical_predictions_and_saves_back():
    model = lamina.saving.load_model(DATA / "keras_conv_lstm2d.keras")
    assert [type(layer).__name__ for layer in model.layers][1:4] == [
        "ConvLSTM2D", "ConvLSTM2D", "AdaptiveAveragePooling2D"]
    np.testing.assert_allclose(model.predict(REFERENCES["model/x"], verbose=0),
                               REFERENCES["model/pred"], atol=1e-5)
    assert INDEX["lamina_to_keras"] < 1e-6     # Keras predicted the same from lamina's file


def test_weight_layout_unit_forget_bias_and_read_through_attributes():
    layer = layers.ConvLSTM2D(3, (3, 2), padding="same")
    layer(rand(2, 2, 4, 5, 2).astype("float32"))
    assert [w.name for w in layer.weights] == ["kernel", "recurrent_kernel", "bias"]
    assert [w.shape for w in layer.weights] == [(3, 2, 2, 12), (3, 2, 3, 12), (12,)]
    np.testing.assert_array_equal(layer.get_weights()[2], np.r_[np.zeros(3), np.ones(3),
                                                                np.zeros(6)])
    assert layer.filters == 3 and layer.kernel_size == (3, 2) and layer.padding == "same"
    assert layer.cell.name == "conv_lstm_cell" and layer.trainable_weights == layer.weights
    assert len(layers.ConvLSTM2D(2, 2, use_bias=False)(rand(1, 2, 3, 3, 1)).shape) == 4


def test_mask_initial_state_and_zero_output_for_mask():
    x = rand(3, 4, 3, 3, 2).astype("float32")
    mask = np.array([[1, 1, 1, 0], [1, 1, 0, 0], [1, 1, 1, 1]], dtype=bool)
    layer = layers.ConvLSTM2D(2, 3, padding="same", return_sequences=True, return_state=True)
    initial = [rand(3, 3, 3, 2).astype("float32") for _ in range(2)]
    full = layer(x, initial_state=initial, mask=mask)
    for row, length in enumerate(mask.sum(axis=1)):
        alone = layer(x[row:row + 1, :length],
                      initial_state=[s[row:row + 1] for s in initial])
        np.testing.assert_allclose(full[1].numpy()[row], alone[1].numpy()[0], atol=1e-6)
        np.testing.assert_allclose(full[0].numpy()[row, length - 1:],
                                   np.repeat(alone[0].numpy()[:, -1], 4 - length + 1, 0),
                                   atol=1e-6)   # masked steps repeat the last output
    zeroed = layers.ConvLSTM2D(2, 3, padding="same", return_sequences=True,
                               zero_output_for_mask=True)
    zeroed(x)
    zeroed.set_weights(layer.get_weights())
    out = zeroed(x, mask=mask, initial_state=initial).numpy()
    assert not out[~mask].any() and out[mask].any()
    with pytest.raises(ValueError, match="initial states of shape \\(3, 3, 3, 2\\)"):
        layer(x, initial_state=[s[:, :2] for s in initial])


def test_stateful_halves_equal_the_whole_sequence():
    x = rand(2, 6, 4, 2).astype("float32")
    whole = layers.ConvLSTM1D(3, 2, padding="same", return_sequences=True)
    expected = whole(x).numpy()
    stateful = layers.ConvLSTM1D(3, 2, padding="same", return_sequences=True, stateful=True)
    stateful.build(x.shape)
    stateful.set_weights(whole.get_weights())
    halves = [stateful(x[:, :3]).numpy(), stateful(x[:, 3:]).numpy()]
    np.testing.assert_allclose(np.concatenate(halves, axis=1), expected, atol=1e-6)
    assert [s.shape for s in stateful.states] == [(2, 4, 3)] * 2
    stateful.reset_state()
    np.testing.assert_allclose(stateful(x[:, :3]).numpy(), expected[:, :3], atol=1e-6)


def test_dropout_masks_only_in_training_fixed_per_sequence():
    x = np.ones((2, 3, 4, 4, 1), dtype="float32")
    layer = layers.ConvLSTM2D(2, 2, padding="same", dropout=0.5, recurrent_dropout=0.3,
                              seed=4)
    inference = layer(x).numpy()
    np.testing.assert_array_equal(layer(x, training=False).numpy(), inference)
    first, second = layer(x, training=True).numpy(), layer(x, training=True).numpy()
    assert not np.allclose(first, inference) and not np.allclose(first, second)
    cell = layer.cell
    cell.reset_dropout_mask()
    masks = cell._gate_masks("input", 0.5, (2, 4, 4, 1), True)
    assert len(masks) == 4 and masks is cell._gate_masks("input", 0.5, (2, 4, 4, 1), True)
    assert set(np.unique(np.asarray(masks[0]))) <= {0.0, 2.0}
    mixed = layers.ConvLSTM2D(2, 2, padding="same", dropout=0.5, dtype="mixed_float16")
    assert mixed(x, training=True).dtype == np.float16 == mixed(x).dtype


def test_learns_the_next_frame_of_a_moving_dot():
    lamina.utils.set_random_seed(0)
    frames = np.zeros((48, 5, 6, 6, 1), dtype="float32")
    rows, cols = np.random.default_rng(0).integers(0, 6, 48), np.arange(48) % 2
    for sample, (row, col) in enumerate(zip(rows, cols)):
        for t in range(5):                          # one cell to the right per frame
            frames[sample, t, row, col + t, 0] = 1.0
    x, y = frames[:, :4], frames[:, 4]
    model = lamina.Sequential([lamina.Input((4, 6, 6, 1)),
                               layers.ConvLSTM2D(6, 3, padding="same"),
                               layers.Conv2D(1, 1, activation="sigmoid")])
    model.compile(lamina.optimizers.Adam(0.02), "binary_crossentropy")
    history = model.fit(x, y, epochs=40, batch_size=16, verbose=0)
    assert history.history["loss"][-1] < 0.25 * history.history["loss"][0]
    predicted = model.predict(x, verbose=0)[..., 0]
    hits = predicted.reshape(48, -1).argmax(axis=1) == y[..., 0].reshape(48, -1).argmax(axis=1)
    assert hits.mean() > 0.9


def test_clear_errors_naming_the_layer():
    with pytest.raises(ValueError, match="strides > 1 with dilation_rate > 1"):
        layers.ConvLSTM2D(2, 3, strides=2, dilation_rate=2)
    with pytest.raises(ValueError, match="kernel_size"):
        layers.ConvLSTM3D(2, (3, 3))
    with pytest.raises(ValueError, match="filters"):
        layers.ConvLSTM1D(0, 3)
    with pytest.raises(ValueError, match="dropout"):
        layers.ConvLSTM2D(2, 3, dropout=1.5)
    with pytest.raises(ValueError, match="expects input"):
        layers.ConvLSTM2D(2, 3)(np.ones((2, 3, 4, 1)))
    with pytest.raises(ValueError, match="static spatial"):
        layers.ConvLSTM2D(2, 3).build((None, 3, None, 4, 1))
    with pytest.raises(ValueError, match="larger than its input"):
        layers.ConvLSTM2D(2, 5)(np.ones((1, 2, 3, 3, 1)))

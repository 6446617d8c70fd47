"""StackedRNNCells inside RNN: Keras 3's outputs (masks, go_backwards, last output), its
weight order and paths, a Keras file both ways (checked by hand, see
``test_keras_file_layout``), the flattened states, the fused path against the step-by-step
loop, gradients, configs, shapes, models and errors."""

import numpy as np
import pytest

import lamina
from lamina import layers

from harness.layers import (test_config_round_trip_and_output_shape,  # noqa: F401
                            test_gradients_match_finite_differences,
                            test_inside_sequential_and_functional_models)
from harness.saving import saved_weight_paths
from harness.more_keras_references import case_id, check_more_against_keras, more_cases

RNG = np.random.default_rng(11)


def rand(*shape):
    return RNG.uniform(-1.0, 1.0, size=shape)


def stacked(**rnn_kwargs):
    return layers.RNN(layers.StackedRNNCells([layers.LSTMCell(3), layers.GRUCell(2)]),
                      **rnn_kwargs)


@pytest.mark.parametrize("case", more_cases("StackedRNNCells"), ids=case_id)
def test_matches_keras(case):
    check_more_against_keras(case)


def test_weights_states_and_paths_as_keras():
    """Weights: each cell's in order, paths ``rnn/stacked_rnn_cells/lstm_cell/kernel``;
    Keras' nested state_size; RNN's states flattened in that order."""
    layer = stacked(return_state=True, name="rnn")
    x = rand(2, 4, 5).astype("float32")
    output, h1, c1, h2 = layer(x)
    assert layer.cell.state_size == [[3, 3], 2]
    assert [w.name for w in layer.weights] == ["kernel", "recurrent_kernel", "bias"] * 2
    assert [w.shape for w in layer.weights] == [(5, 12), (3, 12), (12,), (3, 6), (2, 6),
                                                (2, 6)]
    cell_name = layer.cell.cells[0].name
    assert layer.weights[0].path == f"rnn/{layer.cell.name}/{cell_name}/kernel"
    np.testing.assert_array_equal(output.numpy(), h2.numpy())
    assert (h1.shape, c1.shape) == ((2, 3), (2, 3))
    assert layer.compute_output_shape((None, 4, 5)) == [(None, 2), (None, 3), (None, 3),
                                                        (None, 2)]
    again = layer(x, initial_state=[h1, c1, h2])          # flat, or nested per cell
    nested = layer(x, initial_state=[[h1, c1], h2])
    for a, b in zip(again, nested):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


class StepOnly(layers.Layer):
    """A SimpleRNNCell-like cell without a fused op (forces RNN's step-by-step loop)."""

    def __init__(self, inner, **kwargs):
        super().__init__(**kwargs)
        self.inner = inner
        self.state_size = inner.state_size

    def build(self, input_shape):
        self.inner.ensure_built(input_shape)

    def call(self, inputs, states, training=None):
        return self.inner(inputs, states)


@pytest.mark.parametrize("go_backwards", [False, True])
def test_fused_stack_equals_the_step_by_step_loop(go_backwards):
    x = rand(3, 6, 4).astype("float32")
    mask = RNG.uniform(size=(3, 6)) > 0.3
    fused = layers.RNN(layers.StackedRNNCells([layers.GRUCell(3), layers.LSTMCell(2)]),
                       return_sequences=True, return_state=True, go_backwards=go_backwards)
    expected = fused(x, mask=mask)
    cells = [StepOnly(layers.GRUCell(3)), StepOnly(layers.LSTMCell(2))]
    loop = layers.RNN(layers.StackedRNNCells(cells), return_sequences=True,
                      return_state=True, go_backwards=go_backwards)
    loop(x)
    loop.set_weights(fused.get_weights())
    for got, want in zip(loop(x, mask=mask), expected):
        np.testing.assert_allclose(got.numpy(), want.numpy(), atol=1e-6)


def test_direct_step_call_takes_flat_or_nested_states():
    cells = layers.StackedRNNCells([layers.LSTMCell(3), layers.SimpleRNNCell(2)])
    x = rand(2, 5).astype("float32")
    zeros = [np.zeros((2, 3), "float32"), np.zeros((2, 3), "float32"),
             np.zeros((2, 2), "float32")]
    output, states = cells(x, zeros)
    assert output.shape == (2, 2) and [s.shape for s in states] == [(2, 3), (2, 3), (2, 2)]
    output_nested, _ = cells(x, [zeros[:2], zeros[2]])
    np.testing.assert_array_equal(output.numpy(), output_nested.numpy())
    with pytest.raises(ValueError, match="'stack' \\(StackedRNNCells\\) expects 3 states"):
        layers.StackedRNNCells([layers.LSTMCell(3), layers.SimpleRNNCell(2)],
                               name="stack")(x, zeros[:2])


def test_config_is_keras_and_round_trips():
    layer = stacked(return_sequences=True)
    layer(rand(2, 4, 5).astype("float32"))
    cell_config = layer.get_config()["cell"]
    assert cell_config["class_name"] == "StackedRNNCells"
    assert [c["class_name"] for c in cell_config["config"]["cells"]] == ["LSTMCell",
                                                                         "GRUCell"]
    clone = layers.RNN.from_config(layer.get_config())
    assert clone.get_config() == layer.get_config()


def test_keras_file_layout(tmp_path):
    """lamina's .keras file holds the cells where Keras' does
    (``layers/rnn/cell/cells/lstm_cell/vars``, named by the cells' classes); a file Keras 3.15 wrote this way loaded
    into lamina to Keras' predictions (max |diff| 6e-8) and lamina's re-saved file into
    Keras (0.0) when this was written."""
    inputs = lamina.Input((4, 5))
    model = lamina.Model(inputs, stacked(return_sequences=True, name="rnn")(inputs))
    path, names = saved_weight_paths(model, tmp_path)
    assert {"layers/rnn/cell/cells/lstm_cell/vars/2",
            "layers/rnn/cell/cells/gru_cell/vars/2"} <= set(names)   # class names, as Keras
    x = rand(2, 4, 5).astype("float32")
    np.testing.assert_allclose(lamina.load_model(path).predict(x, verbose=0),
                               model.predict(x, verbose=0), atol=1e-6)


def test_bad_cells_raise():
    with pytest.raises(ValueError, match="non-empty list of cells"):
        layers.StackedRNNCells([])
    with pytest.raises(ValueError, match="state_size"):
        layers.StackedRNNCells([layers.Dense(3)])


CASES = [
    (lambda: stacked(return_sequences=True), (2, 4, 3)),
    (lambda: layers.RNN(layers.StackedRNNCells([layers.SimpleRNNCell(3),
                                                layers.GRUCell(2, reset_after=False)]),
                        go_backwards=True), (2, 3, 4)),
]
CASE_IDS = ["lstm_gru_sequences", "simple_gru_backwards"]

"""ONNX export of recurrent layers (gate orders, GRU reset_after, go_backwards, states),
Bidirectional and MultiHeadAttention: onnxruntime predicts what lamina does."""

import numpy as np
import pytest

import lamina
from lamina import layers as L
from harness.onnx_export import check_onnx, randomize_weights

pytest.importorskip("onnx", reason="ONNX export needs the [onnx] extra")
pytest.importorskip("onnxruntime", reason="onnxruntime is in the [test] extra")

RNG = np.random.RandomState(1)
X = RNG.randn(3, 6, 4).astype("float32")

RECURRENT = {
    "simple_rnn": lambda: L.SimpleRNN(5),
    "simple_rnn_relu_sequences": lambda: L.SimpleRNN(5, activation="relu",
                                                     return_sequences=True),
    "lstm": lambda: L.LSTM(5),
    "lstm_no_bias_hard_sigmoid": lambda: L.LSTM(5, use_bias=False,
                                                recurrent_activation="hard_sigmoid"),
    "lstm_sequences_backwards": lambda: L.LSTM(5, return_sequences=True, go_backwards=True),
    "gru_reset_after": lambda: L.GRU(5, return_sequences=True),
    "gru_reset_before": lambda: L.GRU(5, reset_after=False),
    "gru_backwards": lambda: L.GRU(5, go_backwards=True),
}


@pytest.mark.parametrize("name", sorted(RECURRENT))
def test_recurrent_layers(name, tmp_path):
    model = randomize_weights(lamina.Sequential([lamina.Input((6, 4)), RECURRENT[name]()]))
    check_onnx(model, X, tmp_path)


@pytest.mark.parametrize("layer", [L.LSTM, L.GRU, L.SimpleRNN])
def test_return_state_gives_every_state(layer, tmp_path):
    inputs = lamina.Input((6, 4))
    outputs = layer(3, return_state=True)(inputs)
    model = randomize_weights(lamina.Model(inputs, list(outputs)))
    got = check_onnx(model, X, tmp_path)
    assert len(got) == (3 if layer is L.LSTM else 2)


@pytest.mark.parametrize("merge_mode", ["concat", "sum", "mul", "ave", None])
@pytest.mark.parametrize("return_sequences", [False, True])
def test_bidirectional(merge_mode, return_sequences, tmp_path):
    inputs = lamina.Input((6, 4))
    outputs = L.Bidirectional(L.GRU(3, return_sequences=return_sequences),
                              merge_mode=merge_mode)(inputs)
    model = randomize_weights(lamina.Model(inputs, outputs))
    check_onnx(model, X, tmp_path)


def test_bidirectional_lstm_with_states(tmp_path):
    inputs = lamina.Input((6, 4))
    outputs = L.Bidirectional(L.LSTM(3, return_state=True))(inputs)
    model = randomize_weights(lamina.Model(inputs, list(outputs)))
    assert len(check_onnx(model, X, tmp_path)) == 5


def test_multi_head_attention_self_and_cross(tmp_path):
    query, value = lamina.Input((5, 4)), lamina.Input((7, 3))
    key = lamina.Input((7, 2))
    cross = L.MultiHeadAttention(2, 3, value_dim=4, output_shape=6)(query, value, key)
    self_attention = L.MultiHeadAttention(3, 2, use_bias=False)(query, query)
    model = randomize_weights(lamina.Model([query, value, key], [cross, self_attention]))
    check_onnx(model, [RNG.randn(2, 5, 4).astype("float32"),
                       RNG.randn(2, 7, 3).astype("float32"),
                       RNG.randn(2, 7, 2).astype("float32")], tmp_path)

"""Recurrent layers (SimpleRNN, LSTM, GRU, RNN, Bidirectional and the cells): forward
against plain-NumPy loops, gradients against finite differences, masking, initial states,
Keras weight layout, configs, shapes, models and input errors."""

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.backends import Tensor

from harness.ops import numerical_gradient
from harness.recurrent import gru_step, lstm_step, reference_run, simple_step

RNG = np.random.default_rng(7)


def rand(*shape, dtype="float32"):
    return RNG.uniform(-1.0, 1.0, size=shape).astype(dtype)


def reference_for(layer, weights):
    kernel, recurrent, bias = (w.astype("float64") for w in weights)
    if isinstance(layer, layers.LSTM):
        return lstm_step(kernel, recurrent, bias), 2
    if isinstance(layer, layers.GRU):
        return gru_step(kernel, recurrent, bias, layer.reset_after), 1
    return simple_step(kernel, recurrent, bias), 1


MAKERS = {
    "lstm": lambda **kw: layers.LSTM(5, **kw),
    "gru": lambda **kw: layers.GRU(5, **kw),
    "gru_reset_before": lambda **kw: layers.GRU(5, reset_after=False, **kw),
    "simple_rnn": lambda **kw: layers.SimpleRNN(5, **kw),
}


# ------------------------------------------------------------------ forward
@pytest.mark.parametrize("kind", list(MAKERS))
@pytest.mark.parametrize("go_backwards", [False, True])
def test_forward_matches_numpy_loop(kind, go_backwards):
    x = rand(4, 6, 3)
    layer = MAKERS[kind](return_sequences=True, return_state=True, go_backwards=go_backwards)
    outputs = layer(x)
    step, n_states = reference_for(layer, layer.get_weights())
    zeros = [np.zeros((4, 5))] * n_states
    expected_seq, expected_states = reference_run(step, x.astype("float64"), zeros,
                                                  go_backwards=go_backwards)
    assert len(outputs) == 1 + n_states
    assert all(out.dtype == np.float32 for out in outputs)
    np.testing.assert_allclose(outputs[0].numpy(), expected_seq, atol=1e-5)
    for got, want in zip(outputs[1:], expected_states):
        np.testing.assert_allclose(got.numpy(), want, atol=1e-5)
    last = MAKERS[kind](go_backwards=go_backwards)
    last(x)
    last.set_weights(layer.get_weights())
    np.testing.assert_allclose(last(x).numpy(), expected_states[0], atol=1e-5)


@pytest.mark.parametrize("kind", ["lstm", "gru", "simple_rnn"])
def test_initial_state_and_mask_match_numpy_loop(kind):
    x = rand(3, 5, 4)
    mask = np.array([[1, 1, 1, 0, 0], [1, 0, 1, 1, 0], [0, 1, 1, 1, 1]], dtype=bool)
    layer = MAKERS[kind](return_sequences=True, return_state=True)
    layer(x)
    step, n_states = reference_for(layer, layer.get_weights())
    initial = [rand(3, 5) for _ in range(n_states)]
    outputs = layer(x, initial_state=initial, mask=mask)
    expected_seq, expected_states = reference_run(
        step, x.astype("float64"), [s.astype("float64") for s in initial], mask)
    np.testing.assert_allclose(outputs[0].numpy(), expected_seq, atol=1e-5)
    for got, want in zip(outputs[1:], expected_states):
        np.testing.assert_allclose(got.numpy(), want, atol=1e-5)


def test_weight_layout_names_and_unit_forget_bias():
    x = rand(2, 3, 6)
    lstm, gru, simple = layers.LSTM(10), layers.GRU(9), layers.SimpleRNN(4)
    gru_before = layers.GRU(9, reset_after=False)
    for layer in (lstm, gru, simple, gru_before):
        layer(x)
    assert [w.shape for w in lstm.weights] == [(6, 40), (10, 40), (40,)]
    assert [w.shape for w in gru.weights] == [(6, 27), (9, 27), (2, 27)]
    assert [w.shape for w in gru_before.weights] == [(6, 27), (9, 27), (27,)]
    assert [w.shape for w in simple.weights] == [(6, 4), (4, 4), (4,)]
    for layer, cell in ((lstm, "lstm_cell"), (gru, "gru_cell"), (simple, "simple_rnn_cell")):
        assert [w.name for w in layer.weights] == ["kernel", "recurrent_kernel", "bias"]
        assert [w.path for w in layer.weights] == [
            f"{layer.name}/{cell}/{name}" for name in ("kernel", "recurrent_kernel", "bias")]
        assert layer.cell.name == cell and layer.trainable_weights == layer.weights
    bias = lstm.get_weights()[2]
    np.testing.assert_array_equal(bias, np.r_[np.zeros(10), np.ones(10), np.zeros(20)])
    recurrent = lstm.get_weights()[1]
    np.testing.assert_allclose(recurrent @ recurrent.T, np.eye(10), atol=1e-5)  # orthogonal
    assert lstm.units == 10 and gru.reset_after and simple.activation == "tanh"


# ------------------------------------------------------------------ gradients
GRAD_MAKERS = {
    "lstm_sequences": lambda: layers.LSTM(3, return_sequences=True),
    "lstm_backwards": lambda: layers.LSTM(2, go_backwards=True),
    "gru": lambda: layers.GRU(3, return_sequences=True),
    "gru_reset_before": lambda: layers.GRU(2, reset_after=False),
    "simple_rnn": lambda: layers.SimpleRNN(3, return_sequences=True),
    "lstm_relu_hard_sigmoid": lambda: layers.LSTM(2, activation="relu",
                                                  recurrent_activation="hard_sigmoid",
                                                  kernel_initializer="ones"),
    "bidirectional_concat": lambda: layers.Bidirectional(layers.GRU(2, return_sequences=True)),
    "bidirectional_sum": lambda: layers.Bidirectional(layers.LSTM(2), merge_mode="sum"),
}


@pytest.mark.parametrize("make", list(GRAD_MAKERS.values()), ids=list(GRAD_MAKERS))
def test_gradients_match_finite_differences(float64, check_gradients, make):
    x = RNG.uniform(-1, 1, size=(2, 4, 3)) + 0.05
    check_gradients(make(), x)


@pytest.mark.parametrize("kind", ["lstm", "gru"])
def test_gradients_with_mask_and_initial_state(float64, kind):
    layer = (layers.LSTM if kind == "lstm" else layers.GRU)(3, return_sequences=True,
                                                           return_state=True)
    x = RNG.standard_normal((2, 4, 3))
    mask = np.array([[1, 1, 0, 0], [1, 0, 1, 1]], dtype=bool)
    states = [RNG.standard_normal((2, 3)) for _ in range(2 if kind == "lstm" else 1)]
    layer(x)
    projections = None

    def loss_of(arrays):
        xs, *initial = arrays
        outs = layer(xs, initial_state=list(initial), mask=mask)
        return sum(ops.sum(out * r) for out, r in zip(outs, projections))

    outs = layer(x, initial_state=states, mask=mask)
    projections = [RNG.standard_normal(out.shape) for out in outs]
    tensors = [Tensor(a, requires_grad=True) for a in [x, *states]]
    weights = layer.trainable_weights
    grads = lamina.grad(loss_of(tensors), tensors + weights)
    targets = [x, *states] + [w.data for w in weights]

    def loss_value():
        with lamina.no_grad():
            return float(loss_of([x, *states]).numpy())

    for target, got in zip(targets, grads):
        np.testing.assert_allclose(got.numpy(), numerical_gradient(loss_value, target),
                                   rtol=1e-5, atol=1e-7)


def test_float32_stays_float32_in_forward_and_backward():
    for layer in (layers.LSTM(4, return_sequences=True), layers.GRU(4), layers.SimpleRNN(4)):
        x = Tensor(rand(2, 3, 5), requires_grad=True)
        out = layer(x)
        grads = lamina.grad(ops.sum(out), [x, *layer.weights])
        assert out.dtype == np.float32
        assert all(g.dtype == np.float32 for g in grads)


# ------------------------------------------------------------------ masking
@pytest.mark.parametrize("rnn", [lambda: layers.LSTM(4), lambda: layers.GRU(4),
                                 lambda: layers.LSTM(4, return_sequences=True)])
def test_post_padded_sequences_give_unpadded_outputs(rnn):
    lengths = [5, 3, 1, 4]
    ids = np.zeros((4, 7), dtype="int32")
    for row, length in enumerate(lengths):
        ids[row, :length] = RNG.integers(1, 20, size=length)
    inputs = lamina.Input((None,), dtype="int32")
    embedded = layers.Embedding(20, 6, mask_zero=True)(inputs)
    recurrent = rnn()
    model = lamina.Model(inputs, recurrent(embedded))
    padded = model.predict(ids, verbose=0)
    for row, length in enumerate(lengths):
        alone = model.predict(ids[row:row + 1, :length], verbose=0)[0]
        if recurrent.return_sequences:
            np.testing.assert_allclose(padded[row, :length], alone, atol=1e-6)
            # Keras: masked steps repeat the last valid output.
            np.testing.assert_allclose(padded[row, length:],
                                       np.broadcast_to(alone[-1], padded[row, length:].shape),
                                       atol=1e-6)
        else:
            np.testing.assert_allclose(padded[row], alone, atol=1e-6)


def test_masking_layer_feeds_the_mask_and_zero_output_for_mask():
    x = rand(2, 5, 3)
    x[0, 3:] = 0.0
    inputs = lamina.Input((5, 3))
    masked = layers.Masking()(inputs)
    rnn = layers.SimpleRNN(4, return_sequences=True, zero_output_for_mask=True)
    model = lamina.Model(inputs, rnn(masked))
    out = model.predict(x, verbose=0)
    np.testing.assert_array_equal(out[0, 3:], 0.0)
    np.testing.assert_allclose(out[0, :3], rnn(x[:1, :3]).numpy()[0], atol=1e-6)
    assert np.all(out[1] != 0.0)


def test_bidirectional_with_mask_matches_unpadded():
    x = rand(1, 6, 3)
    x_padded = np.concatenate([x, np.zeros((1, 2, 3), "float32")], axis=1)
    mask = np.array([[True] * 6 + [False] * 2])
    bi = layers.Bidirectional(layers.LSTM(3, return_sequences=True))
    full = bi(x_padded, mask=mask).numpy()
    np.testing.assert_allclose(full[:, :6], bi(x).numpy(), atol=1e-6)
    np.testing.assert_array_equal(full[:, 6:], 0.0)   # Bidirectional zeroes masked outputs


# ------------------------------------------------------------------ Bidirectional
def test_bidirectional_layout_merge_modes_and_states():
    x = rand(2, 4, 3)
    bi = layers.Bidirectional(layers.LSTM(5, return_sequences=True, name="enc"))
    out = bi(x)
    assert out.shape == (2, 4, 10)
    assert bi.forward_layer.name == "forward_enc" and bi.backward_layer.name == "backward_enc"
    assert bi.backward_layer.go_backwards and not bi.forward_layer.go_backwards
    assert len(bi.weights) == 6 and bi.weights[0].path == f"{bi.name}/forward_enc/lstm_cell/kernel"
    forward = bi.forward_layer(x).numpy()
    backward = bi.backward_layer(x).numpy()[:, ::-1]
    np.testing.assert_allclose(out.numpy(), np.concatenate([forward, backward], -1), atol=1e-6)
    for mode, combine in (("sum", np.add), ("mul", np.multiply),
                          ("ave", lambda a, b: (a + b) / 2)):
        other = layers.Bidirectional(layers.LSTM(5, return_sequences=True), merge_mode=mode)
        other(x)
        other.set_weights(bi.get_weights())
        np.testing.assert_allclose(other(x).numpy(), combine(forward, backward), atol=1e-6)
    pair = layers.Bidirectional(layers.GRU(2, return_state=True), merge_mode=None)
    outs = pair(x)
    assert [o.shape for o in outs] == [(2, 2)] * 4
    assert pair.compute_output_shape((None, 4, 3)) == [(None, 2)] * 4
    with pytest.raises(ValueError, match="merge_mode"):
        layers.Bidirectional(layers.LSTM(2), merge_mode="max")
    with pytest.raises(ValueError, match="go_backwards"):
        layers.Bidirectional(layers.LSTM(2), backward_layer=layers.LSTM(2))


# ------------------------------------------------------------------ cells and generic RNN
class OpsOnlyCell(layers.Layer):
    """A user cell written with lamina.ops only (runs through RNN's generic loop)."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.state_size = units

    def build(self, input_shape):
        self.kernel = self.add_weight((input_shape[-1], self.units), name="kernel")
        self.recurrent_kernel = self.add_weight((self.units, self.units),
                                                name="recurrent_kernel")
        self.bias = self.add_weight((self.units,), "zeros", name="bias")

    def call(self, inputs, states):
        h = ops.tanh(ops.matmul(inputs, self.kernel) + ops.matmul(states[0],
                                                                  self.recurrent_kernel)
                     + self.bias)
        return h, [h]


def test_generic_rnn_with_custom_cell_matches_fused_simple_rnn():
    x = rand(3, 5, 4)
    mask = np.ones((3, 5), dtype=bool)
    mask[1, 3:] = False
    custom = layers.RNN(OpsOnlyCell(6), return_sequences=True, go_backwards=True)
    fused = layers.SimpleRNN(6, return_sequences=True, go_backwards=True)
    custom(x)
    fused(x)
    fused.set_weights(custom.get_weights())
    np.testing.assert_allclose(custom(x, mask=mask).numpy(), fused(x, mask=mask).numpy(),
                               atol=1e-6)
    x_tensor = Tensor(x, requires_grad=True)
    (g_custom,) = lamina.grad(ops.sum(custom(x_tensor) ** 2), [x_tensor])
    (g_fused,) = lamina.grad(ops.sum(fused(x_tensor) ** 2), [x_tensor])
    np.testing.assert_allclose(g_custom.numpy(), g_fused.numpy(), atol=1e-5)


def test_rnn_with_builtin_cell_and_one_step_cell_call():
    x = rand(2, 4, 3)
    wrapped = layers.RNN(layers.LSTMCell(5), return_sequences=True)
    lstm = layers.LSTM(5, return_sequences=True)
    wrapped(x)
    lstm(x)
    lstm.set_weights(wrapped.get_weights())
    np.testing.assert_allclose(wrapped(x).numpy(), lstm(x).numpy(), atol=1e-6)
    cell = wrapped.cell
    h, c = rand(2, 5), rand(2, 5)
    output, (h1, c1) = cell(x[:, 0], [h, c])
    want_h, want_c = lstm_step(*[w.astype("float64") for w in cell.get_weights()])(
        x[:, 0].astype("float64"), h, c)
    np.testing.assert_allclose(output.numpy(), want_h, atol=1e-5)
    np.testing.assert_allclose(c1.numpy(), want_c, atol=1e-5)
    config = wrapped.get_config()
    assert config["cell"]["class_name"] == "LSTMCell"
    clone = layers.RNN.from_config(config)
    clone(x)
    clone.set_weights(wrapped.get_weights())
    np.testing.assert_allclose(clone(x).numpy(), wrapped(x).numpy(), atol=1e-6)


def test_freezing_and_unfreezing_reach_the_cell_weights():
    x = rand(2, 3, 4)
    for layer in (layers.LSTM(3, trainable=False),
                  layers.Bidirectional(layers.GRU(2), trainable=False)):
        layer(x)
        assert layer.trainable_weights == [] and len(layer.non_trainable_weights) > 0
        assert not any(w.requires_grad for w in layer.weights)
        layer.trainable = True
        assert layer.trainable_weights == layer.weights
        assert all(w.requires_grad for w in layer.weights)
    mha = layers.MultiHeadAttention(2, 2, trainable=False)
    mha(x, x)
    assert mha.trainable_weights == [] and not any(w.requires_grad for w in mha.weights)


def test_dropout_only_in_training_and_still_differentiable():
    x = Tensor(rand(8, 5, 4), requires_grad=True)
    layer = layers.LSTM(6, dropout=0.5, recurrent_dropout=0.3, seed=1)
    inference = layer(x).numpy()
    np.testing.assert_array_equal(layer(x, training=False).numpy(), inference)
    trained = layer(x, training=True)
    assert not np.allclose(trained.numpy(), inference)
    grads = lamina.grad(ops.sum(trained), [x, *layer.weights])
    assert all(np.all(np.isfinite(g.numpy())) for g in grads)


# ------------------------------------------------------------------ config, shapes, models
CONFIG_MAKERS = {
    "lstm": lambda: layers.LSTM(3, return_sequences=True, go_backwards=True,
                                recurrent_activation="hard_sigmoid", unit_forget_bias=False,
                                dropout=0.1, kernel_regularizer="l2"),
    "gru": lambda: layers.GRU(3, reset_after=False, use_bias=False),
    "simple_rnn": lambda: layers.SimpleRNN(3, activation="relu", return_sequences=True),
    "bidirectional": lambda: layers.Bidirectional(layers.GRU(3, return_sequences=True),
                                                  merge_mode="ave"),
}


@pytest.mark.parametrize("make", list(CONFIG_MAKERS.values()), ids=list(CONFIG_MAKERS))
def test_config_round_trip_and_output_shape(check_config, check_output_shape, make):
    x = rand(2, 4, 3)
    check_config(make(), x)
    check_output_shape(make(), x)
    layer = make()
    assert layer.compute_output_shape((None, None, 3))[1] is None or not getattr(
        layer, "return_sequences", True)


def test_lstm_config_has_keras_keys():
    config = layers.LSTM(4).get_config()
    for key in ("units", "activation", "recurrent_activation", "use_bias", "kernel_initializer",
                "recurrent_initializer", "bias_initializer", "unit_forget_bias", "dropout",
                "recurrent_dropout", "return_sequences", "return_state", "go_backwards",
                "stateful", "unroll", "seed"):
        assert key in config
    assert config["recurrent_initializer"]["class_name"] == "Orthogonal"
    assert "cell" not in config
    keras2 = dict(config, implementation=2, name="from_keras2")
    assert layers.LSTM.from_config(keras2).units == 4


def test_return_state_output_shapes():
    layer = layers.LSTM(4, return_sequences=True, return_state=True)
    outputs = layer(rand(2, 3, 5))
    assert layer.compute_output_shape((None, None, 5)) == [(None, None, 4), (None, 4),
                                                           (None, 4)]
    assert [o.shape for o in outputs] == [(2, 3, 4), (2, 4), (2, 4)]


@pytest.mark.parametrize("make", [lambda: layers.LSTM(3), lambda: layers.GRU(3),
                                  lambda: layers.SimpleRNN(3, return_sequences=True),
                                  lambda: layers.Bidirectional(layers.LSTM(2))])
def test_inside_sequential_and_functional_models(check_models, make):
    check_models(make, rand(3, 4, 2))


def test_functional_initial_state_keyword_encoder_decoder():
    encoder_in, decoder_in = lamina.Input((None, 3)), lamina.Input((None, 2))
    _, h, c = layers.LSTM(4, return_state=True)(encoder_in)
    decoder = layers.LSTM(4, return_sequences=True)
    out = decoder(decoder_in, initial_state=[h, c])
    model = lamina.Model([encoder_in, decoder_in], out)
    a, b = rand(2, 5, 3), rand(2, 3, 2)
    predicted = model.predict([a, b], verbose=0)
    assert predicted.shape == (2, 3, 4)
    encoder = model.layers[[isinstance(l, layers.LSTM) for l in model.layers].index(True)]
    _, h_val, c_val = encoder(a)
    np.testing.assert_allclose(predicted, decoder(b, initial_state=[h_val, c_val]).numpy(),
                               atol=1e-6)


# ------------------------------------------------------------------ errors
def test_clear_errors_naming_the_layer():
    with pytest.raises(ValueError, match="Layer 'rank_probe' expects input of rank 3"):
        layers.LSTM(3, name="rank_probe")(rand(2, 3))
    layer = layers.GRU(3, name="feature_probe")
    layer(rand(2, 4, 3))
    with pytest.raises(ValueError, match="feature_probe"):
        layer(rand(2, 4, 5))
    with pytest.raises(ValueError, match="feature_probe"):
        layer(rand(2, 4, 3, 1))
    with pytest.raises(ValueError, match="Layer 'stateful_probe'.*batch size must be static"):
        layers.LSTM(3, stateful=True, name="stateful_probe")(lamina.Input((4, 3)))
    with pytest.raises(ValueError, match="Layer 'units_probe'"):
        layers.SimpleRNN(0, name="units_probe")
    with pytest.raises(ValueError, match="Layer 'act_probe'.*activation"):
        layers.LSTM(3, activation="softmax", name="act_probe")
    with pytest.raises(ValueError, match="Layer 'state_probe' expects 2 initial state"):
        layers.LSTM(3, name="state_probe")(rand(2, 4, 3), initial_state=[rand(2, 3)])
    with pytest.raises(ValueError, match="state_probe"):
        layers.LSTM(3, name="state_probe")(rand(2, 4, 3), initial_state=[rand(2, 4)] * 2)
    inputs = lamina.Input((5,))
    with pytest.raises(ValueError, match="Layer 'symbolic_probe' expects input of rank 3"):
        layers.SimpleRNN(3, name="symbolic_probe")(inputs)


# ------------------------------------------------------------------ stateful
def _keras_weights(seed, layer):
    rng = np.random.default_rng(seed)
    return [rng.normal(scale=0.5, size=w.shape).astype("float32") for w in layer.weights]


# Keras 3.15 (torch backend), the same weights and inputs, fed in two predict calls:
#   x = np.random.default_rng(0).normal(size=(2, 6, 3)).astype("float32")
#   m = keras.Sequential([keras.Input((None, 3), batch_size=2),
#                         getattr(keras.layers, cls)(4, stateful=True, return_sequences=True)])
#   rng = np.random.default_rng(seed)
#   m.set_weights([rng.normal(scale=0.5, size=v.shape).astype("float32")
#                  for v in m.get_weights()])
#   m.predict(x[:, :3], batch_size=2); print(m.predict(x[:, 3:], batch_size=2)[:, -1])
KERAS_STATEFUL_LAST = {
    "LSTM": (1, [[0.495818, -0.198123, -0.130212, 0.066757],
                 [0.40613, -0.324752, -0.212246, -0.00293]]),
    "GRU": (2, [[-0.381912, 0.074153, -0.755263, -0.169024],
                [0.362494, 0.114808, -0.141201, -0.159176]]),
    "SimpleRNN": (3, [[-0.346732, 0.916529, 0.919188, 0.123911],
                      [0.446348, 0.746637, 0.642391, -0.47639]]),
}


@pytest.mark.parametrize("kind", sorted(KERAS_STATEFUL_LAST))
def test_stateful_halves_equal_full_sequence_and_keras(kind):
    seed, expected = KERAS_STATEFUL_LAST[kind]
    x = np.random.default_rng(0).normal(size=(2, 6, 3)).astype("float32")
    model = lamina.Sequential([lamina.Input((None, 3), batch_size=2),
                               getattr(layers, kind)(4, stateful=True, return_sequences=True)])
    layer = model.layers[0]
    model.set_weights(_keras_weights(seed, model))
    first = model.predict(x[:, :3], batch_size=2, verbose=0)
    second = model.predict(x[:, 3:], batch_size=2, verbose=0)
    np.testing.assert_allclose(second[:, -1], expected, atol=2e-5)
    np.testing.assert_allclose(layer.states[0].numpy(), second[:, -1], atol=1e-6)
    assert layer.weights == layer.trainable_weights and len(layer.weights) == 3  # not saved
    layer.reset_state()
    assert not np.any(layer.states[0].numpy())
    full = model.predict(x, batch_size=2, verbose=0)
    np.testing.assert_allclose(np.concatenate([first, second], axis=1), full, atol=1e-6)
    model.layers[0].reset_states()  # Keras' alias
    np.testing.assert_allclose(model.predict(x, batch_size=2, verbose=0), full, atol=1e-6)


def test_stateful_lstm_trains_and_checks_the_batch_size():
    layer = layers.LSTM(3, stateful=True, batch_input_shape=(4, 5, 2), name="carry")
    model = lamina.Sequential([layer, layers.Dense(1)])
    assert model.input_shape == (4, 5, 2) and len(layer.states) == 2
    assert layer.get_config()["stateful"] is True
    model.compile(optimizer="sgd", loss="mse")
    model.fit(rand(8, 5, 2), rand(8, 1), batch_size=4, epochs=1, shuffle=False, verbose=0)
    assert np.any(layer.states[1].numpy())  # the cell state carried over
    with pytest.raises(ValueError, match="Layer 'carry'.*batch size.*Expected batch size: 4"):
        model.predict(rand(3, 5, 2), batch_size=3, verbose=0)

"""MultiHeadAttention, Attention and AdditiveAttention: forward against plain-NumPy loops, masks, Keras weight
layout, gradients against finite differences, configs, models and errors."""

import json
import math

import numpy as np
import pytest

import lamina
from lamina import layers, ops

from harness.more_keras_references import case_id, check_more_against_keras, more_cases

RNG = np.random.default_rng(3)


def rand(*shape, dtype="float32"):
    return RNG.uniform(-1.0, 1.0, size=shape).astype(dtype)


def softmax(x):
    e = np.exp(x - x.max())
    return e / e.sum()


class FromFlat(layers.Layer):
    """Slices one (batch, n) input into tensors of ``shapes`` and calls an attention layer
    on them (positionally, or as one list), so the shared gradient check covers them all."""

    def __init__(self, inner, shapes, as_list=False, **call_kwargs):
        super().__init__()
        self.inner, self.shapes = inner, [tuple(s) for s in shapes]
        self.as_list, self.call_kwargs = as_list, call_kwargs

    def call(self, x):
        pieces, start = [], 0
        for shape in self.shapes:
            size = math.prod(shape)
            pieces.append(ops.reshape(x[:, start:start + size], (x.shape[0],) + shape))
            start += size
        if self.as_list:
            return self.inner(pieces, **self.call_kwargs)
        return self.inner(*pieces, **self.call_kwargs)


def flat_input(batch, shapes):
    return RNG.uniform(-1, 1, size=(batch, sum(math.prod(s) for s in shapes)))


# ------------------------------------------------------------------ NumPy reference
def reference_mha(query, value, key, weights, keep=None):
    """Plain loops over batch, heads and query positions (Keras' maths, float64)."""
    wq, bq, wk, bk, wv, bv, wo, bo = (w.astype("float64") for w in weights)
    query, value, key = (a.astype("float64") for a in (query, value, key))
    batch, t_len, s_len = query.shape[0], query.shape[1], value.shape[1]
    heads, key_dim, value_dim = wq.shape[1], wq.shape[2], wv.shape[2]
    out_dim = wo.shape[2]
    output = np.zeros((batch, t_len, out_dim))
    scores = np.zeros((batch, heads, t_len, s_len))
    for b in range(batch):
        for h in range(heads):
            q = query[b] @ wq[:, h] + bq[h]
            k = key[b] @ wk[:, h] + bk[h]
            v = value[b] @ wv[:, h] + bv[h]
            for t in range(t_len):
                logits = (q[t] / math.sqrt(key_dim)) @ k.T
                if keep is not None:
                    row = keep[b, t]
                    probs = softmax(np.where(row, logits, logits - 1e9)) * row
                else:
                    probs = softmax(logits)
                scores[b, h, t] = probs
                output[b, t] += (probs @ v) @ wo[h]
        output[b] += bo
    return output, scores


# ------------------------------------------------------------------ MultiHeadAttention
def test_mha_self_attention_matches_numpy_and_keras_layout():
    x = rand(2, 5, 6)
    mha = layers.MultiHeadAttention(num_heads=3, key_dim=4)
    out = mha(x, x)
    assert out.shape == (2, 5, 6) and out.dtype == np.float32
    assert [w.shape for w in mha.weights] == [(6, 3, 4), (3, 4), (6, 3, 4), (3, 4),
                                              (6, 3, 4), (3, 4), (3, 4, 6), (6,)]
    assert [w.path for w in mha.weights] == [
        f"{mha.name}/{part}/{name}" for part in ("query", "key", "value", "attention_output")
        for name in ("kernel", "bias")]
    weights = [w + rand(*w.shape) * 0.1 for w in mha.get_weights()]   # non-zero biases
    mha.set_weights(weights)
    expected, expected_scores = reference_mha(x, x, x, weights)
    out, scores = mha(x, x, return_attention_scores=True)
    np.testing.assert_allclose(out.numpy(), expected, atol=1e-5)
    np.testing.assert_allclose(scores.numpy(), expected_scores, atol=1e-5)


def test_mha_cross_attention_key_value_dims_and_output_shape():
    query, value, key = rand(2, 3, 4), rand(2, 6, 5), rand(2, 6, 7)
    mha = layers.MultiHeadAttention(2, key_dim=3, value_dim=5, output_shape=8)
    out = mha(query, value, key)
    assert out.shape == (2, 3, 8)
    assert [w.shape for w in mha.weights] == [(4, 2, 3), (2, 3), (7, 2, 3), (2, 3),
                                              (5, 2, 5), (2, 5), (2, 5, 8), (8,)]
    expected, _ = reference_mha(query, value, key, mha.get_weights())
    np.testing.assert_allclose(out.numpy(), expected, atol=1e-5)
    assert mha.compute_output_shape((None, 3, 4)) == (None, 3, 8)


def test_mha_masks_causal_and_padding():
    x, value = rand(2, 4, 6), rand(2, 5, 6)
    mha = layers.MultiHeadAttention(2, key_dim=3)
    mha(x, value)
    weights = mha.get_weights()
    value_mask = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], dtype=bool)
    query_mask = np.array([[1, 1, 1, 0], [1, 1, 0, 0]], dtype=bool)
    attention_mask = RNG.random((2, 4, 5)) > 0.3
    keep = attention_mask & value_mask[:, None, :] & query_mask[:, :, None]
    out = mha(x, value, attention_mask=attention_mask, value_mask=value_mask,
              query_mask=query_mask)
    np.testing.assert_allclose(out.numpy(), reference_mha(x, value, value, weights, keep)[0],
                               atol=1e-5)
    self_mha = layers.MultiHeadAttention(2, key_dim=3)
    self_mha(x, x)
    causal = np.broadcast_to(np.tril(np.ones((4, 4), bool)), (2, 4, 4))
    out, scores = self_mha(x, x, use_causal_mask=True, return_attention_scores=True)
    expected, expected_scores = reference_mha(x, x, x, self_mha.get_weights(), causal)
    np.testing.assert_allclose(out.numpy(), expected, atol=1e-5)
    np.testing.assert_allclose(scores.numpy(), expected_scores, atol=1e-6)
    assert np.all(np.triu(scores.numpy()[0, 0], 1) == 0)


def test_mha_higher_rank_query_flattens_attention_axes():
    x = rand(2, 2, 3, 4)
    mha = layers.MultiHeadAttention(2, key_dim=2)
    out, scores = mha(x, x, return_attention_scores=True)
    assert out.shape == (2, 2, 3, 4) and scores.shape == (2, 2, 2, 3, 2, 3)
    flat = x.reshape(2, 6, 4)
    expected, _ = reference_mha(flat, flat, flat, mha.get_weights())
    np.testing.assert_allclose(out.numpy().reshape(2, 6, 4), expected, atol=1e-5)


@pytest.mark.parametrize("kwargs, call", [
    ({}, {}),
    ({"value_dim": 3, "use_bias": False}, {"use_causal_mask": True}),
    ({"output_shape": (2,)}, {}),
])
def test_mha_gradients_match_finite_differences(float64, check_gradients, kwargs, call):
    shapes = [(3, 4), (3, 4), (3, 5)]
    mha = layers.MultiHeadAttention(2, key_dim=2, **kwargs)
    check_gradients(FromFlat(mha, shapes, **call), flat_input(2, shapes))


def test_mha_config_round_trip():
    mha = layers.MultiHeadAttention(2, key_dim=3, value_dim=4, dropout=0.1, output_shape=5,
                                    kernel_initializer="he_normal", seed=3)
    x = rand(2, 3, 6)
    out = mha(x, x).numpy()
    config = mha.get_config()
    assert json.loads(json.dumps(config)) == config
    for key in ("num_heads", "key_dim", "value_dim", "dropout", "use_bias", "output_shape",
                "attention_axes", "kernel_initializer", "bias_initializer", "seed"):
        assert key in config
    clone = layers.MultiHeadAttention.from_config(config)
    assert clone.get_config() == config
    clone(x, x)
    clone.set_weights(mha.get_weights())
    np.testing.assert_allclose(clone(x, x).numpy(), out, atol=1e-6)


def test_mha_dropout_only_while_training():
    x = rand(4, 5, 6)
    mha = layers.MultiHeadAttention(2, key_dim=3, dropout=0.5, seed=0)
    inference = mha(x, x).numpy()
    np.testing.assert_array_equal(mha(x, x, training=False).numpy(), inference)
    assert not np.allclose(mha(x, x, training=True).numpy(), inference)


def test_mha_in_functional_model_trains():
    lamina.utils.set_random_seed(0)
    inputs = lamina.Input((4, 3))
    mha = layers.MultiHeadAttention(num_heads=2, key_dim=4)
    attended = mha(inputs, inputs)
    assert attended.shape == (None, 4, 3)
    model = lamina.Model(inputs, layers.Dense(1)(layers.Flatten()(attended)))
    x = rand(64, 4, 3)
    np.testing.assert_allclose(model.predict(x, verbose=0),
                               model.layers[-1](model.layers[-2](mha(x, x))).numpy(),
                               atol=1e-5)
    y = x.max(axis=1).sum(axis=1, keepdims=True)
    model.compile(optimizer=lamina.optimizers.Adam(0.02), loss="mse")
    history = model.fit(x, y, epochs=30, batch_size=16, verbose=0)
    assert history.history["loss"][-1] < 0.5 * history.history["loss"][0]


def test_mha_errors_name_the_layer():
    with pytest.raises(ValueError, match="Layer 'rank_probe' .*rank >= 3"):
        layers.MultiHeadAttention(2, 3, name="rank_probe")(rand(2, 4), rand(2, 4))
    with pytest.raises(ValueError, match="Layer 'kv_probe'"):
        layers.MultiHeadAttention(2, 3, name="kv_probe")(rand(2, 3, 4), rand(2, 5, 4),
                                                         rand(2, 6, 4))
    with pytest.raises(ValueError, match="Layer 'axes_probe' .*attention_axes"):
        layers.MultiHeadAttention(2, 3, attention_axes=(2,), name="axes_probe")(
            rand(2, 3, 3, 4), rand(2, 3, 3, 4))
    with pytest.raises(ValueError, match="Layer 'heads_probe' .*num_heads"):
        layers.MultiHeadAttention(0, 3, name="heads_probe")
    same = layers.MultiHeadAttention(2, 3, attention_axes=-2)
    assert same(rand(2, 3, 4), rand(2, 3, 4)).shape == (2, 3, 4)


# ------------------------------------------------------------------ Attention
def reference_attention(query, value, key, scale=1.0, concat_weight=None, value_mask=None,
                        query_mask=None, causal=False):
    batch, t_len, s_len = query.shape[0], query.shape[1], value.shape[1]
    out = np.zeros((batch, t_len, value.shape[2]))
    weights = np.zeros((batch, t_len, s_len))
    for b in range(batch):
        for t in range(t_len):
            if concat_weight is None:
                logits = scale * (key[b] @ query[b, t])
            else:
                logits = concat_weight * np.tanh(scale * (query[b, t] + key[b])).sum(axis=-1)
            keep = np.ones(s_len, bool) if value_mask is None else value_mask[b].copy()
            if causal:
                keep &= np.arange(s_len) <= t
            probs = softmax(logits - 1e9 * ~keep)
            weights[b, t] = probs
            out[b, t] = probs @ value[b]
            if query_mask is not None and not query_mask[b, t]:
                out[b, t] = 0.0
    return out, weights


def test_attention_dot_values_masks_and_scores():
    query, value, key = rand(2, 3, 4), rand(2, 5, 4), rand(2, 5, 4)
    layer = layers.Attention()
    np.testing.assert_allclose(layer([query, value]).numpy(),
                               reference_attention(query, value, value)[0], atol=1e-5)
    value_mask = np.array([[1, 1, 0, 0, 0], [1, 1, 1, 1, 0]], dtype=bool)
    query_mask = np.array([[1, 0, 1], [1, 1, 1]], dtype=bool)
    out, scores = layer([query, value, key], mask=[query_mask, value_mask],
                        return_attention_scores=True)
    expected, expected_scores = reference_attention(query, value, key, value_mask=value_mask,
                                                    query_mask=query_mask)
    np.testing.assert_allclose(out.numpy(), expected, atol=1e-5)
    np.testing.assert_allclose(scores.numpy(), expected_scores, atol=1e-6)
    self_query = rand(2, 4, 4)
    causal = layer([self_query, self_query], use_causal_mask=True).numpy()
    np.testing.assert_allclose(
        causal, reference_attention(self_query, self_query, self_query, causal=True)[0],
        atol=1e-5)
    np.testing.assert_array_equal(layer.compute_mask([query, value],
                                                     [query_mask, value_mask]).numpy(),
                                  query_mask)
    assert layer.compute_output_shape([(None, 3, 4), (None, 5, 6)]) == (None, 3, 6)


def test_attention_scale_and_concat_modes():
    query, value = rand(2, 3, 4), rand(2, 5, 4)
    scaled = layers.Attention(use_scale=True)
    scaled([query, value])
    assert [w.name for w in scaled.weights] == ["scale"] and scaled.weights[0].shape == ()
    scaled.set_weights([np.array(2.5, "float32")])
    np.testing.assert_allclose(scaled([query, value]).numpy(),
                               reference_attention(query, value, value, scale=2.5)[0],
                               atol=1e-5)
    concat = layers.Attention(use_scale=True, score_mode="concat")
    concat([query, value])
    assert [w.name for w in concat.weights] == ["scale", "concat_score_weight"]
    concat.set_weights([np.array(0.7, "float32"), np.array(1.5, "float32")])
    np.testing.assert_allclose(
        concat([query, value]).numpy(),
        reference_attention(query, value, value, scale=0.7, concat_weight=1.5)[0], atol=1e-5)


@pytest.mark.parametrize("make", [lambda: layers.Attention(use_scale=True),
                                  lambda: layers.Attention(score_mode="concat")],
                         ids=["dot_scaled", "concat"])
def test_attention_gradients_match_finite_differences(float64, check_gradients, make):
    shapes = [(2, 3), (4, 3), (4, 3)]
    check_gradients(FromFlat(make(), shapes, as_list=True), flat_input(2, shapes))


def test_attention_config_errors_and_functional_masks():
    layer = layers.Attention(use_scale=True, score_mode="concat", dropout=0.2, seed=1)
    config = layer.get_config()
    assert {"use_scale", "score_mode", "dropout", "seed"} <= set(config)
    assert layers.Attention.from_config(config).get_config() == config
    with pytest.raises(ValueError, match="Layer 'list_probe' .*list"):
        layers.Attention(name="list_probe")(rand(2, 3, 4))
    with pytest.raises(ValueError, match="Layer 'mode_probe' .*score_mode"):
        layers.Attention(score_mode="additive", name="mode_probe")

    q_ids, v_ids = lamina.Input((None,), dtype="int32"), lamina.Input((None,), dtype="int32")
    embedding = layers.Embedding(9, 4, mask_zero=True)
    attention = layers.Attention()
    model = lamina.Model([q_ids, v_ids], attention([embedding(q_ids), embedding(v_ids)]))
    q, v = np.array([[1, 2, 0]]), np.array([[3, 4, 5, 0, 0]])
    direct = attention([embedding(q), embedding(v)], mask=[q != 0, v != 0]).numpy()
    np.testing.assert_allclose(model.predict([q, v], verbose=0), direct, atol=1e-6)
    np.testing.assert_array_equal(direct[0, 2], 0.0)


# ------------------------------------------------------------------ AdditiveAttention
@pytest.mark.parametrize("case", more_cases("AdditiveAttention"), ids=case_id)
def test_additive_attention_matches_keras(case):
    """Keras' outputs (masks, a separate key, no scale) and its weight ``scale`` (dim,)."""
    check_more_against_keras(case)


def test_additive_attention_scores_and_masks_against_numpy():
    query, value = rand(2, 3, 4), rand(2, 5, 4)
    layer = layers.AdditiveAttention()
    layer([query, value])
    scale = rand(4)
    layer.set_weights([scale])
    value_mask = np.array([[1, 1, 0, 0, 0], [1, 1, 1, 1, 0]], dtype=bool)
    out, weights = layer([query, value], mask=[None, value_mask],
                         return_attention_scores=True)
    scores = (scale * np.tanh(query[:, :, None] + value[:, None])).sum(-1)
    scores = np.where(value_mask[:, None], scores, -1e9)
    expected = np.exp(scores - scores.max(-1, keepdims=True))
    expected /= expected.sum(-1, keepdims=True)
    np.testing.assert_allclose(weights.numpy(), expected, atol=1e-6)
    np.testing.assert_allclose(out.numpy(), expected @ value, atol=1e-5)


@pytest.mark.parametrize("use_scale", [True, False])
def test_additive_attention_gradients_match_finite_differences(float64, check_gradients,
                                                               use_scale):
    shapes = [(2, 3), (4, 3), (4, 3)]
    layer = layers.AdditiveAttention(use_scale=use_scale)
    check_gradients(FromFlat(layer, shapes, as_list=True), flat_input(2, shapes))


def test_additive_attention_config_is_keras_and_errors_name_the_layer():
    layer = layers.AdditiveAttention(dropout=0.1, seed=2)
    config = layer.get_config()
    assert set(config) == {"name", "trainable", "dtype", "use_scale", "dropout", "seed"}
    assert config["use_scale"] is True
    assert layers.AdditiveAttention.from_config(config).get_config() == config
    with pytest.raises(ValueError, match="Layer 'add_probe' \\(AdditiveAttention\\) .*list"):
        layers.AdditiveAttention(name="add_probe")(rand(2, 3, 4))
    inputs = [lamina.Input((3, 4)), lamina.Input((5, 4))]
    model = lamina.Model(inputs, layers.AdditiveAttention()(inputs))
    assert model.output_shape == (None, 3, 4)

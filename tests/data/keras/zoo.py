"""Small models built the same way with Keras 3 or lamina (same API), for the Keras
interoperability files in this folder. ``build(name, k)`` takes the framework module
(``keras`` or ``lamina``); ``inputs(name)`` gives deterministic inputs; ``randomize``
sets every weight from a seeded generator, in ``model.weights`` order (the same order in
both frameworks), so both hold the same numbers. Every layer is named explicitly, so the
configs do not depend on how many layers a process created before.

Used by ``make_keras_files.py`` (run with Keras) and by
``tests/highlevel/test_keras_interop.py`` (lamina only). Keep it free of any import of keras or lamina.
"""

import numpy as np

NAMES = ("mlp", "cnn2d", "cnn1d", "rnn", "multi_io", "attention", "nested")


def build(name, k):
    return globals()[f"_build_{name}"](k)


def _build_mlp(k):
    L = k.layers
    return k.Sequential([k.Input((8,), name="x"),
                         L.Dense(16, activation="relu", name="hidden"),
                         L.Dropout(0.2, name="dropout"),
                         L.Dense(3, activation="softmax", name="probabilities")], name="mlp")


def _build_cnn2d(k):
    L = k.layers
    return k.Sequential([
        k.Input((8, 8, 3), name="image"),
        L.Conv2D(4, 3, padding="same", activation="relu", name="conv2d"),
        L.BatchNormalization(name="batch_normalization"),
        L.MaxPooling2D(2, name="max_pooling2d"),
        L.Conv2D(6, 3, strides=2, padding="valid", use_bias=False, name="conv2d_1"),
        L.AveragePooling2D(1, name="average_pooling2d"),
        L.Flatten(name="flatten"),
        L.Dense(2, name="dense"),
    ], name="cnn2d")


def _build_cnn1d(k):
    L = k.layers
    return k.Sequential([
        k.Input((12, 4), name="series"),
        L.Conv1D(5, 3, padding="causal", activation="tanh", name="conv1d"),
        L.LayerNormalization(name="layer_normalization"),
        L.MaxPooling1D(2, name="max_pooling1d"),
        L.Conv1D(3, 2, padding="same", name="conv1d_1"),
        L.GlobalAveragePooling1D(name="global_average_pooling1d"),
        L.Dense(1, name="dense"),
    ], name="cnn1d")


def _build_rnn(k):
    L = k.layers
    return k.Sequential([
        k.Input((6,), dtype="int32", name="tokens"),
        L.Embedding(20, 5, name="embedding"),
        L.SimpleRNN(4, return_sequences=True, name="simple_rnn"),
        L.LSTM(6, return_sequences=True, name="lstm"),
        L.GRU(5, name="gru"),
        L.Dense(2, name="dense"),
    ], name="rnn")


def _build_multi_io(k):
    L = k.layers
    a = k.Input((10,), name="in_a")
    b = k.Input((6,), name="in_b")
    ha = L.Dense(8, activation="relu", name="dense_a")(a)
    hb = L.Dense(8, activation="relu", name="dense_b")(b)
    added = L.Add(name="add")([ha, hb])
    merged = L.Concatenate(name="concatenate")([added, a])
    out_1 = L.Dense(3, activation="softmax", name="out_1")(merged)
    out_2 = L.Dense(1, name="out_2")(merged)
    return k.Model([a, b], [out_1, out_2], name="multi_io")


def _build_attention(k):
    L = k.layers
    x = k.Input((5, 8), name="tokens")
    attended = L.MultiHeadAttention(num_heads=2, key_dim=4, name="mha")(x, x)
    normed = L.LayerNormalization(name="norm")(L.Add(name="residual")([x, attended]))
    pooled = L.GlobalAveragePooling1D(name="pool")(normed)
    return k.Model(x, L.Dense(2, name="head")(pooled), name="attention")


def _build_nested(k):
    L = k.layers
    inner = k.Sequential([k.Input((6,), name="inner_input"),
                          L.Dense(5, activation="relu", name="inner_dense"),
                          L.BatchNormalization(name="inner_bn")], name="inner")
    x = k.Input((6,), name="features")
    shared = L.Dense(6, activation="tanh", name="shared")
    h = shared(shared(x))                    # a shared layer, called twice
    return k.Model(x, L.Dense(2, name="top")(inner(h)), name="nested")


def inputs(name):
    """Deterministic float32 (int32 for token ids) inputs: a list, one per model input."""
    rng = np.random.default_rng(sum(map(ord, name)))
    batch = 4
    if name == "mlp":
        return [rng.normal(size=(batch, 8)).astype("float32")]
    if name == "cnn2d":
        return [rng.normal(size=(batch, 8, 8, 3)).astype("float32")]
    if name == "cnn1d":
        return [rng.normal(size=(batch, 12, 4)).astype("float32")]
    if name == "rnn":
        return [rng.integers(0, 20, size=(batch, 6)).astype("int32")]
    if name == "multi_io":
        return [rng.normal(size=(batch, 10)).astype("float32"),
                rng.normal(size=(batch, 6)).astype("float32")]
    if name in ("attention",):
        return [rng.normal(size=(batch, 5, 8)).astype("float32")]
    if name == "nested":
        return [rng.normal(size=(batch, 6)).astype("float32")]
    raise KeyError(name)


def targets(name):
    """Targets for one training step (so files hold optimizer state)."""
    rng = np.random.default_rng(sum(map(ord, name)) + 1)
    batch = 4
    sizes = {"mlp": 3, "cnn2d": 2, "cnn1d": 1, "rnn": 2, "attention": 2, "nested": 2}
    if name == "multi_io":
        return [np.eye(3, dtype="float32")[rng.integers(0, 3, batch)],
                rng.normal(size=(batch, 1)).astype("float32")]
    if name == "mlp":
        return [np.eye(3, dtype="float32")[rng.integers(0, 3, batch)]]
    return [rng.normal(size=(batch, sizes[name])).astype("float32")]


def randomize(model, weight_shapes_and_names):
    """New values for every weight, from ``[(shape, path)]`` in ``model.weights`` order:
    normal(0, 0.5), and uniform(0.5, 1.5) for variances (kept positive)."""
    rng = np.random.default_rng(1234)
    values = []
    for shape, path in weight_shapes_and_names:
        if "variance" in path:
            values.append(rng.uniform(0.5, 1.5, size=shape).astype("float32"))
        else:
            values.append((rng.normal(size=shape) * 0.5).astype("float32"))
    return values


def compile_args(name, k):
    """Object-form losses (Keras reloads those from .h5) and an Adam optimizer."""
    if name == "multi_io":
        loss = [k.losses.CategoricalCrossentropy(), k.losses.MeanSquaredError()]
    elif name == "mlp":
        loss = k.losses.CategoricalCrossentropy()
    else:
        loss = k.losses.MeanSquaredError()
    return {"optimizer": k.optimizers.Adam(learning_rate=0.01), "loss": loss}

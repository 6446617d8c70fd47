"""The summary cases of tests/highlevel/models/test_summary.py, built the same way in lamina and
Keras. Regenerate the reference: cd /tmp && FRAMEWORK=keras KERAS_BACKEND=torch COLUMNS=200
keras-venv/bin/python summaries_cases.py > summaries.json (Keras 3.15.1)."""

import json
import os
import sys

import numpy as np

if os.environ.get("FRAMEWORK") == "keras":
    import keras as K
    from keras import layers as L
else:
    import lamina as K
    from lamina import layers as L


def cases():
    """(name, model, summary kwargs) for each case."""
    seq = K.Sequential([K.Input((10,)), L.Dense(32, activation="relu"), L.BatchNormalization(),
                        L.Dropout(0.1), L.Dense(3)], name="seq")
    yield "sequential", seq, {}
    yield "sequential_trainable", seq, {"show_trainable": True}
    yield "sequential_range", seq, {"layer_range": ["batch.*", "dropout"]}
    a, b = K.Input((8,), name="a"), K.Input((4,), name="b")
    h = L.Concatenate()([L.Dense(5)(a), b])
    fun = K.Model([a, b], [L.Dense(1, name="o1")(h), L.Dense(2, name="o2")(h)], name="fun")
    yield "functional", fun, {}
    yield "functional_narrow", fun, {"line_length": 80, "positions": [0.4, 0.6, 0.75, 1.0]}
    inner_in = K.Input((6, 6, 2))
    conv = L.Conv2D(4, 3, name="conv")
    conv.trainable = False
    inner = K.Model(inner_in, L.GlobalAveragePooling2D(name="gap")(conv(inner_in)), name="inner")
    outer_in = K.Input((6, 6, 2), name="image")
    outer = K.Model(outer_in, L.Dense(2, name="head")(inner(outer_in)), name="outer")
    yield "nested", outer, {}
    yield "nested_expanded", outer, {"expand_nested": True, "show_trainable": True}
    rnn = K.Sequential([K.Input((5, 3)), L.LSTM(7, return_sequences=True), L.GRU(4),
                        L.Dense(1)], name="rnn")
    rnn.compile(optimizer="adam", loss="mse")
    rnn.fit(np.zeros((4, 5, 3), "float32"), np.zeros((4, 1), "float32"), verbose=0)
    yield "fitted_adam", rnn, {}
    mlp = K.Sequential([K.Input((3,)), L.Dense(2)], name="mlp")
    mlp.compile(optimizer=K.optimizers.SGD(momentum=0.9), loss="mse")
    mlp.fit(np.zeros((4, 3), "float32"), np.zeros((4, 2), "float32"), verbose=0)
    yield "fitted_sgd_momentum", mlp, {}


if __name__ == "__main__":
    out = {}
    for name, model, kwargs in cases():
        texts = []
        model.summary(print_fn=lambda text, **_: texts.append(text), **kwargs)
        out[name] = {"kwargs": kwargs, "text": texts[0]}
    json.dump(out, sys.stdout, indent=1, ensure_ascii=False)

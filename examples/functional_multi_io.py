"""A two-input, two-output functional model on generated data: both losses fall.

Run: python examples/functional_multi_io.py
"""

import sys

import numpy as np

import lamina
from lamina import layers


def main():
    lamina.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    n = 2000
    numbers = rng.standard_normal((n, 8)).astype("float32")
    extras = rng.standard_normal((n, 4)).astype("float32")
    target_value = (numbers[:, :3].sum(axis=1, keepdims=True) - extras[:, :1]).astype("float32")
    target_class = (numbers[:, 0] * extras[:, 1] > 0).astype("int64")

    in_numbers = lamina.Input((8,), name="numbers")
    in_extras = lamina.Input((4,), name="extras")
    merged = layers.Concatenate()([
        layers.Dense(32, activation="relu")(in_numbers),
        layers.Dense(16, activation="relu")(in_extras),
    ])
    hidden = layers.Dense(32, activation="relu")(merged)
    value = layers.Dense(1, name="value")(hidden)
    label = layers.Dense(2, activation="softmax", name="label")(hidden)
    model = lamina.Model([in_numbers, in_extras], [value, label])
    model.compile(optimizer="adam",
                  loss={"value": "mse", "label": "sparse_categorical_crossentropy"},
                  loss_weights={"value": 1.0, "label": 0.5},
                  metrics={"label": ["accuracy"]})
    model.summary()
    history = model.fit({"numbers": numbers, "extras": extras},
                        {"value": target_value, "label": target_class},
                        batch_size=64, epochs=15, verbose=2)
    first = {k: v[0] for k, v in history.history.items()}
    last = {k: v[-1] for k, v in history.history.items()}
    print("first epoch:", first)
    print("last epoch: ", last)
    fell = last["value_loss"] < 0.5 * first["value_loss"] and \
        last["label_loss"] < first["label_loss"]
    return 0 if fell else 1


if __name__ == "__main__":
    sys.exit(main())

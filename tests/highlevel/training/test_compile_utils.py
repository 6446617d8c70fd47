"""compile()'s metrics: log names as Keras 3 gives them (output prefixes, ``_1`` for a
repeated name, ``weighted_`` for a weighted metric whose name is taken)."""

import numpy as np

import lamina
from lamina import layers


def two_output_model():
    inputs = layers.Input((4,))
    first = layers.Dense(3, activation="softmax", name="a")(inputs)
    second = layers.Dense(3, activation="softmax", name="b")(inputs)
    return lamina.Model(inputs, [first, second])


def test_weighted_and_repeated_metric_names_as_keras():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(16, 4)).astype("float32"), rng.integers(0, 3, 16)
    model = lamina.Sequential([layers.Input((4,)), layers.Dense(3, activation="softmax")])
    model.compile(loss="sparse_categorical_crossentropy", metrics=["accuracy", "accuracy"],
                  weighted_metrics=["accuracy"])
    weights = np.where(np.arange(16) < 8, 1.0, 0.0).astype("float32")
    logs = model.evaluate(x, y, sample_weight=weights, verbose=0, return_dict=True)
    # Keras 3.15 logs exactly these names for this compile() call.
    assert sorted(logs) == ["accuracy", "accuracy_1", "loss", "weighted_accuracy"]
    predicted = model.predict(x, verbose=0).argmax(-1)
    np.testing.assert_allclose(logs["accuracy"], (predicted == y).mean(), rtol=1e-6)
    np.testing.assert_allclose(logs["weighted_accuracy"], (predicted == y)[:8].mean(),
                               rtol=1e-6)


def test_multi_output_metric_names_as_keras():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(8, 4)).astype("float32")
    y = [rng.integers(0, 3, 8), rng.integers(0, 3, 8)]
    model = two_output_model()
    model.compile(loss="sparse_categorical_crossentropy",
                  metrics={"a": ["accuracy"], "b": ["accuracy", "accuracy"]},
                  weighted_metrics={"a": ["accuracy"], "b": ["accuracy"]})
    logs = model.evaluate(x, y, verbose=0, return_dict=True)
    assert sorted(logs) == ["a_accuracy", "a_loss", "a_weighted_accuracy", "b_accuracy",
                            "b_accuracy_1", "b_loss", "b_weighted_accuracy", "loss"]

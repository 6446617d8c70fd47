"""Classify raw English sentences as positive or negative, the Keras way: the model takes
strings. TextVectorization (vocabulary learned by ``adapt``) -> Embedding ->
GlobalAveragePooling1D -> Dense, trained with ``fit`` on an array of sentences; the
vocabulary travels inside the saved ``.h5`` file, and the reloaded model predicts the same.

Run: python examples/text_classification.py   (seconds; exits 1 below 95% held-out accuracy
or when the reloaded model predicts differently)
"""

import os
import sys
import tempfile

import numpy as np

import lamina
from lamina import layers

POSITIVE = ["great", "wonderful", "loved", "excellent", "fun", "brilliant", "enjoyable"]
NEGATIVE = ["awful", "boring", "hated", "terrible", "dull", "painful", "waste"]
FILLER = ["the", "movie", "plot", "acting", "was", "really", "and", "a", "film", "story"]


def make_reviews(count, rng):
    """(sentences (count,) str with punctuation and mixed case, labels (count,) 0/1)."""
    labels = rng.integers(0, 2, size=count)
    words = rng.choice(FILLER, size=(count, 6)).astype(object)
    sentiment = np.where(labels[:, None] == 1, rng.choice(POSITIVE, size=(count, 2)),
                         rng.choice(NEGATIVE, size=(count, 2)))
    slots = np.argsort(rng.random((count, 6)), axis=1)[:, :2]
    np.put_along_axis(words, slots, sentiment, axis=1)
    sentences = np.array([" ".join(row).capitalize() + "!" for row in words])
    return sentences, labels.astype("float32")


def main():
    lamina.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    train_x, train_y = make_reviews(800, rng)
    test_x, test_y = make_reviews(200, rng)
    print("example sentence:", train_x[0], "->", int(train_y[0]))

    vectorize = layers.TextVectorization(max_tokens=100, output_sequence_length=8)
    vectorize.adapt(train_x)
    print("vocabulary size:", vectorize.vocabulary_size())

    inputs = lamina.Input(shape=(1,), dtype="string")
    hidden = layers.Embedding(100, 16)(vectorize(inputs))
    hidden = layers.GlobalAveragePooling1D()(hidden)
    outputs = layers.Dense(1, activation="sigmoid")(hidden)
    model = lamina.Model(inputs, outputs)
    model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
    model.fit(train_x[:, None], train_y, epochs=15, batch_size=32, verbose=0)
    _, accuracy = model.evaluate(test_x[:, None], test_y, verbose=0)
    print(f"held-out accuracy: {accuracy:.3f}")

    queries = np.array([["What a brilliant, fun film!"], ["Boring and painful. A waste."]])
    before = model.predict(queries, verbose=0).ravel()
    print("predictions:", np.round(before, 3).tolist())
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "text_model.h5")
        model.save(path)
        restored = lamina.load_model(path)
    after = restored.predict(queries, verbose=0).ravel()
    same = np.array_equal(before, after)
    print("reloaded model predicts the same:", same)
    ok = accuracy >= 0.95 and same and before[0] > 0.5 > before[1]
    print("text classification OK" if ok else "text classification FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

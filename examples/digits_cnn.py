"""Train a small convolutional network on scikit-learn's 8x8 digits and report held-out
accuracy.

Run: python examples/digits_cnn.py   (well under a minute on 2 cores; exits 1 below 98%)
"""

import sys
import time

from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

import lamina
from lamina import layers


def main():
    lamina.utils.set_random_seed(0)
    digits = load_digits()
    x = (digits.images / 16.0).astype("float32")[..., None]   # (n, 8, 8, 1) in [0, 1]
    x_train, x_test, y_train, y_test = train_test_split(
        x, digits.target, test_size=0.25, random_state=0, stratify=digits.target)

    model = lamina.Sequential([
        layers.Input((8, 8, 1)),
        layers.Conv2D(32, 3, padding="same", use_bias=False),
        layers.BatchNormalization(),
        layers.Activation("relu"),
        layers.Conv2D(32, 3, padding="same", activation="relu"),
        layers.MaxPooling2D(),                                  # -> (4, 4, 32)
        layers.Conv2D(64, 3, padding="same", use_bias=False),
        layers.BatchNormalization(),
        layers.Activation("relu"),
        layers.GlobalAveragePooling2D(),
        layers.Dropout(0.2),
        layers.Dense(10, activation="softmax"),
    ])
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    model.summary()

    start = time.perf_counter()
    model.fit(x_train, y_train, batch_size=32, epochs=20, verbose=2)
    elapsed = time.perf_counter() - start
    loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
    print(f"test loss {loss:.4f}  test accuracy {accuracy:.4f}  ({elapsed:.1f} s training)")
    return 0 if accuracy >= 0.98 else 1


if __name__ == "__main__":
    sys.exit(main())

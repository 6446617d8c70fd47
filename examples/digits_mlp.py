"""Train a small MLP on scikit-learn's digits and report held-out accuracy.

Run: python examples/digits_mlp.py   (about 10 s on 2 cores; exits 1 below 97%)
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
    x = (digits.data / 16.0).astype("float32")
    x_train, x_test, y_train, y_test = train_test_split(
        x, digits.target, test_size=0.25, random_state=0, stratify=digits.target)

    model = lamina.Sequential([
        layers.Input((64,)),
        layers.Dense(256, activation="relu"),
        layers.Dropout(0.3),
        layers.Dense(64, activation="relu"),
        layers.Dense(10, activation="softmax"),
    ])
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    model.summary()

    start = time.perf_counter()
    model.fit(x_train, y_train, batch_size=32, epochs=60, validation_split=0.1, verbose=1)
    elapsed = time.perf_counter() - start
    loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
    print(f"test loss {loss:.4f}  test accuracy {accuracy:.4f}  ({elapsed:.1f} s training)")
    return 0 if accuracy >= 0.97 else 1


if __name__ == "__main__":
    sys.exit(main())

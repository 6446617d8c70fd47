"""Look at a model and its training: the layer graph (``plot_model``), the learning curves
(``plot_history``), TensorBoard logs and an ONNX file for serving.

Run: python examples/visualize_training.py [OUTPUT_FOLDER]   (default docs/images; about
15 s on 2 cores). Needs the extras: pip install 'lamina[plot,tensorboard,onnx]' and
Graphviz's dot (apt-get install graphviz). Writes model.png and history.png (the README's
pictures), logs/ (tensorboard --logdir OUTPUT_FOLDER/logs) and model.onnx.
"""

import pathlib
import sys

from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

import lamina
from lamina import layers


def build_model():
    """Two views of an 8x8 digit, a convolutional one and a dense one, joined."""
    image = layers.Input((8, 8, 1), name="image")
    conv = layers.Conv2D(16, 3, padding="same", activation="relu")(image)
    conv = layers.GlobalAveragePooling2D()(layers.MaxPooling2D()(conv))
    dense = layers.Dense(32, activation="relu")(layers.Flatten()(image))
    joined = layers.Dropout(0.2)(layers.Concatenate()([conv, dense]))
    digit = layers.Dense(10, activation="softmax", name="digit")(joined)
    return lamina.Model(image, digit, name="digits_two_views")


def main(output=pathlib.Path("docs/images")):
    output.mkdir(parents=True, exist_ok=True)
    lamina.utils.set_random_seed(0)
    digits = load_digits()
    x = (digits.images / 16.0).astype("float32")[..., None]
    x_train, x_test, y_train, y_test = train_test_split(
        x, digits.target, test_size=0.25, random_state=0, stratify=digits.target)
    model = build_model()
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    model.summary()
    lamina.utils.plot_model(model, to_file=output / "model.png", show_shapes=True,
                            show_layer_names=True, show_layer_activations=True, dpi=80)
    history = model.fit(x_train, y_train, batch_size=32, epochs=20, validation_split=0.15,
                        verbose=2, callbacks=[lamina.callbacks.TensorBoard(output / "logs")])
    lamina.utils.plot_history(history, to_file=output / "history.png")
    model.export(output / "model.onnx", format="onnx")
    loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
    print(f"test accuracy {accuracy:.4f}; wrote {output / 'model.png'}, "
          f"{output / 'history.png'}, {output / 'logs'}, {output / 'model.onnx'}")
    return 0 if accuracy >= 0.9 else 1


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path("docs/images")))

"""keras.io example "Simple MNIST convnet" (fchollet), ported to lamina.

Source: keras-team/keras-io, examples/vision/mnist_convnet.py (Apache License 2.0), in its
Keras 3 form (`import keras` / `from keras import layers`). Changed: the imports
(`import lamina as keras`, `from lamina import layers`); the prose is cut; the
`keras.datasets.mnist` download is replaced by generated uint8 28x28 images whose class
is a bright 7x7 block in one of ten positions (600 train / 200 test samples, so that the
convnet has something to learn); 3 epochs instead of 15.
"""

import numpy as np
import lamina as keras
from lamina import layers


def generated_mnist(n, rng):
    """uint8 (n, 28, 28) images and uint8 labels: class k lights block k of a grid."""
    labels = rng.integers(0, 10, n).astype("uint8")
    images = rng.integers(0, 60, (n, 28, 28)).astype("uint8")
    rows, cols = (labels // 4) * 7 + 3, (labels % 4) * 7
    for offset in range(7):
        images[np.arange(n)[:, None], rows[:, None] + np.arange(7)[None, :] * 0 + offset,
               cols[:, None] + np.arange(7)[None, :]] = 255
    return images, labels


# Model / data parameters
num_classes = 10
input_shape = (28, 28, 1)

# Generated in place of keras.datasets.mnist.load_data():
rng = np.random.default_rng(0)
(x_train, y_train), (x_test, y_test) = generated_mnist(600, rng), generated_mnist(200, rng)

# Scale images to the [0, 1] range
x_train = x_train.astype("float32") / 255
x_test = x_test.astype("float32") / 255
# Make sure images have shape (28, 28, 1)
x_train = np.expand_dims(x_train, -1)
x_test = np.expand_dims(x_test, -1)
print("x_train shape:", x_train.shape)
print(x_train.shape[0], "train samples")
print(x_test.shape[0], "test samples")


# convert class vectors to binary class matrices
y_train = keras.utils.to_categorical(y_train, num_classes)
y_test = keras.utils.to_categorical(y_test, num_classes)

model = keras.Sequential(
    [
        keras.Input(shape=input_shape),
        layers.Conv2D(32, kernel_size=(3, 3), activation="relu"),
        layers.MaxPooling2D(pool_size=(2, 2)),
        layers.Conv2D(64, kernel_size=(3, 3), activation="relu"),
        layers.MaxPooling2D(pool_size=(2, 2)),
        layers.Flatten(),
        layers.Dropout(0.5),
        layers.Dense(num_classes, activation="softmax"),
    ]
)

model.summary()

batch_size = 128
epochs = 3

model.compile(loss="categorical_crossentropy", optimizer="adam", metrics=["accuracy"])

model.fit(x_train, y_train, batch_size=batch_size, epochs=epochs, validation_split=0.1)

score = model.evaluate(x_test, y_test, verbose=0)
print("Test loss:", score[0])
print("Test accuracy:", score[1])

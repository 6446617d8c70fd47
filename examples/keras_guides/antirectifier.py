"""keras.io example "Simple custom layer example: Antirectifier" (fchollet), ported.

Source: keras-team/keras-io, examples/keras_recipes/antirectifier.py (Apache License
2.0), in its Keras 3 form (`keras.ops` in place of `tf.reduce_mean` / `tf.nn.relu` /
`tf.concat` / `tf.matmul`, `super().__init__`). Changed: the imports (`import lamina as
keras`, `from lamina import layers, ops`); the prose is cut; the `keras.datasets.mnist`
download is replaced by generated uint8 arrays of MNIST's per-sample shape (800 train /
200 test samples); 2 epochs instead of 20.
"""

import numpy as np
import lamina as keras
from lamina import layers
from lamina import ops


class Antirectifier(layers.Layer):
    def __init__(self, initializer="he_normal", **kwargs):
        super().__init__(**kwargs)
        self.initializer = keras.initializers.get(initializer)

    def build(self, input_shape):
        output_dim = input_shape[-1]
        self.kernel = self.add_weight(
            shape=(output_dim * 2, output_dim),
            initializer=self.initializer,
            name="kernel",
            trainable=True,
        )

    def call(self, inputs):
        inputs -= ops.mean(inputs, axis=-1, keepdims=True)
        pos = ops.relu(inputs)
        neg = ops.relu(-inputs)
        concatenated = ops.concatenate([pos, neg], axis=-1)
        mixed = ops.matmul(concatenated, self.kernel)
        return mixed

    def get_config(self):
        # Implement get_config to enable serialization. This is optional.
        base_config = super().get_config()
        config = {"initializer": keras.initializers.serialize(self.initializer)}
        return dict(list(base_config.items()) + list(config.items()))


# Training parameters
batch_size = 128
num_classes = 10
epochs = 2

# Generated in place of keras.datasets.mnist.load_data():
rng = np.random.default_rng(0)
(x_train, y_train), (x_test, y_test) = (
    (rng.integers(0, 256, (800, 28, 28)).astype("uint8"),
     rng.integers(0, 10, 800).astype("uint8")),
    (rng.integers(0, 256, (200, 28, 28)).astype("uint8"),
     rng.integers(0, 10, 200).astype("uint8")),
)

x_train = x_train.reshape(-1, 784)
x_test = x_test.reshape(-1, 784)
x_train = x_train.astype("float32")
x_test = x_test.astype("float32")
x_train /= 255
x_test /= 255
print(x_train.shape[0], "train samples")
print(x_test.shape[0], "test samples")

# Build the model
model = keras.Sequential(
    [
        keras.Input(shape=(784,)),
        layers.Dense(256),
        Antirectifier(),
        layers.Dense(256),
        Antirectifier(),
        layers.Dropout(0.5),
        layers.Dense(10),
    ]
)

# Compile the model
model.compile(
    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    optimizer=keras.optimizers.RMSprop(),
    metrics=[keras.metrics.SparseCategoricalAccuracy()],
)

# Train the model
model.fit(x_train, y_train, batch_size=batch_size, epochs=epochs, validation_split=0.15)

# Test the model
model.evaluate(x_test, y_test)
print("antirectifier example OK")

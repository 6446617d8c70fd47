"""keras.io example "Timeseries classification from scratch" (hfawaz), ported to lamina.

Source: keras-team/keras-io, examples/timeseries/timeseries_classification_from_scratch.py
(Apache License 2.0). Changed: the imports (`import tensorflow as tf` / `from tensorflow
import keras` -> `import lamina as keras`); the prose is cut; the FordA TSV downloads are
replaced by generated series of FordA's layout (label -1/1, 500 float steps, z-normalized;
class 1 carries a faint periodic component; 240 train / 100 test rows) read through the
example's own `readucr`; 8 epochs instead of 500; the checkpoint is "best_model.keras"
(Keras 3's format) instead of "best_model.h5".
Dropped: the two matplotlib plots (display only).
"""

import lamina as keras
import numpy as np
from sklearn.metrics import accuracy_score


def readucr(filename):
    data = np.loadtxt(filename, delimiter="\t")
    y = data[:, 0]
    x = data[:, 1:]
    return x, y.astype(int)


# Generated in place of FordA_TRAIN.tsv / FordA_TEST.tsv from the UCR archive:
def _write_generated_forda(path, n, rng):
    labels = rng.choice([-1, 1], size=n)
    steps = np.arange(500)
    phase = rng.uniform(0, 2 * np.pi, size=(n, 1))
    x = rng.normal(size=(n, 500)) + (labels[:, None] == 1) * 2 * np.sin(steps / 5 + phase)
    x = (x - x.mean(axis=1, keepdims=True)) / x.std(axis=1, keepdims=True)
    np.savetxt(path, np.column_stack([labels, x]), delimiter="\t", fmt="%.5f")


_rng = np.random.default_rng(0)
_write_generated_forda("FordA_TRAIN.tsv", 240, _rng)
_write_generated_forda("FordA_TEST.tsv", 100, _rng)
root_url = ""

x_train, y_train = readucr(root_url + "FordA_TRAIN.tsv")
x_test, y_test = readucr(root_url + "FordA_TEST.tsv")

classes = np.unique(np.concatenate((y_train, y_test), axis=0))

# The matplotlib plot of one series per class is dropped here (display only).

x_train = x_train.reshape((x_train.shape[0], x_train.shape[1], 1))
x_test = x_test.reshape((x_test.shape[0], x_test.shape[1], 1))

num_classes = len(np.unique(y_train))

idx = np.random.permutation(len(x_train))
x_train = x_train[idx]
y_train = y_train[idx]

y_train[y_train == -1] = 0
y_test[y_test == -1] = 0


def make_model(input_shape):
    input_layer = keras.layers.Input(input_shape)

    conv1 = keras.layers.Conv1D(filters=64, kernel_size=3, padding="same")(input_layer)
    conv1 = keras.layers.BatchNormalization()(conv1)
    conv1 = keras.layers.ReLU()(conv1)

    conv2 = keras.layers.Conv1D(filters=64, kernel_size=3, padding="same")(conv1)
    conv2 = keras.layers.BatchNormalization()(conv2)
    conv2 = keras.layers.ReLU()(conv2)

    conv3 = keras.layers.Conv1D(filters=64, kernel_size=3, padding="same")(conv2)
    conv3 = keras.layers.BatchNormalization()(conv3)
    conv3 = keras.layers.ReLU()(conv3)

    gap = keras.layers.GlobalAveragePooling1D()(conv3)

    output_layer = keras.layers.Dense(num_classes, activation="softmax")(gap)

    return keras.models.Model(inputs=input_layer, outputs=output_layer)


model = make_model(input_shape=x_train.shape[1:])
# keras.utils.plot_model(model, show_shapes=True) dropped: needs pydot and graphviz.

epochs = 8
batch_size = 32

callbacks = [
    keras.callbacks.ModelCheckpoint(
        "best_model.keras", save_best_only=True, monitor="val_loss"
    ),
    keras.callbacks.ReduceLROnPlateau(
        monitor="val_loss", factor=0.5, patience=20, min_lr=0.0001
    ),
    keras.callbacks.EarlyStopping(monitor="val_loss", patience=50, verbose=1),
]
model.compile(
    optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"]
)
history = model.fit(
    x_train,
    y_train,
    batch_size=batch_size,
    epochs=epochs,
    callbacks=callbacks,
    validation_split=0.2,
    verbose=1,
)

model = keras.models.load_model("best_model.keras")

y_pred = model.predict(x_test).argmax(axis=1)

print("Test accuracy", accuracy_score(y_pred, y_test))

metric = "accuracy"
print("history has", metric, len(history.history[metric]), "and val_" + metric,
      len(history.history["val_" + metric]), "entries")
# The matplotlib plot of the training curves is dropped here (display only).

"""keras.io example "Imbalanced classification: credit card fraud detection" (fchollet).

Source: keras-team/keras-io, examples/structured_data/imbalanced_classification.py
(Apache License 2.0). Changed: `import keras` -> `import lamina as keras`; the prose is
cut; instead of Kaggle's creditcard.csv, a generated CSV of the same layout (a header,
30 quoted float features, a quoted 0/1 "Class"; 4,000 rows, about 2.5% positive, with
positives shifted so they can be found) is written to the working folder and read by
the example's own CSV code; 5 epochs instead of 30.
"""

import csv
import numpy as np

# Generated in place of https://www.kaggle.com/mlg-ulb/creditcard.csv:
_rng = np.random.default_rng(0)
_labels = (_rng.random(4000) < 0.025).astype(int)
_values = _rng.normal(size=(4000, 30)) + 1.5 * _labels[:, None] * (np.arange(30) % 3 == 0)
with open("creditcard.csv", "w") as _f:
    _f.write(",".join('"%s"' % n for n in ["Time"] + ["V%d" % i for i in range(1, 29)]
                      + ["Amount", "Class"]) + "\n")
    for _row, _label in zip(_values, _labels):
        _f.write(",".join("%.6f" % v for v in _row) + ',"%d"\n' % _label)
fname = "creditcard.csv"

all_features = []
all_targets = []
with open(fname) as f:
    for i, line in enumerate(f):
        if i == 0:
            print("HEADER:", line.strip())
            continue  # Skip header
        fields = line.strip().split(",")
        all_features.append([float(v.replace('"', "")) for v in fields[:-1]])
        all_targets.append([int(fields[-1].replace('"', ""))])
        if i == 1:
            print("EXAMPLE FEATURES:", all_features[-1])

features = np.array(all_features, dtype="float32")
targets = np.array(all_targets, dtype="uint8")
print("features.shape:", features.shape)
print("targets.shape:", targets.shape)

num_val_samples = int(len(features) * 0.2)
train_features = features[:-num_val_samples]
train_targets = targets[:-num_val_samples]
val_features = features[-num_val_samples:]
val_targets = targets[-num_val_samples:]

print("Number of training samples:", len(train_features))
print("Number of validation samples:", len(val_features))

counts = np.bincount(train_targets[:, 0])
print(
    "Number of positive samples in training data: {} ({:.2f}% of total)".format(
        counts[1], 100 * float(counts[1]) / len(train_targets)
    )
)

weight_for_0 = 1.0 / counts[0]
weight_for_1 = 1.0 / counts[1]

mean = np.mean(train_features, axis=0)
train_features -= mean
val_features -= mean
std = np.std(train_features, axis=0)
train_features /= std
val_features /= std

import lamina as keras

model = keras.Sequential(
    [
        keras.Input(shape=train_features.shape[1:]),
        keras.layers.Dense(256, activation="relu"),
        keras.layers.Dense(256, activation="relu"),
        keras.layers.Dropout(0.3),
        keras.layers.Dense(256, activation="relu"),
        keras.layers.Dropout(0.3),
        keras.layers.Dense(1, activation="sigmoid"),
    ]
)
model.summary()

metrics = [
    keras.metrics.FalseNegatives(name="fn"),
    keras.metrics.FalsePositives(name="fp"),
    keras.metrics.TrueNegatives(name="tn"),
    keras.metrics.TruePositives(name="tp"),
    keras.metrics.Precision(name="precision"),
    keras.metrics.Recall(name="recall"),
]

model.compile(
    optimizer=keras.optimizers.Adam(1e-2), loss="binary_crossentropy", metrics=metrics
)

callbacks = [keras.callbacks.ModelCheckpoint("fraud_model_at_epoch_{epoch}.keras")]
class_weight = {0: weight_for_0, 1: weight_for_1}

model.fit(
    train_features,
    train_targets,
    batch_size=2048,
    epochs=5,
    verbose=2,
    callbacks=callbacks,
    validation_data=(val_features, val_targets),
    class_weight=class_weight,
)

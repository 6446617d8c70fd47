"""Regenerates keras_loss_values.json: every keras.losses loss on fixed inputs, computed by
real Keras 3.15 (torch backend). Run: KERAS_BACKEND=torch /work/kvenv/bin/python THIS_FILE"""

import json
import os

import keras
import numpy as np

INPUTS = {
    "binary_true": [[0, 1, 1, 0], [1, 0, 0, 1], [1, 1, 0, 0]],
    "probs": [[0.1, 0.8, 0.6, 0.3], [0.7, 0.2, 0.4, 0.9], [0.55, 0.95, 0.05, 0.45]],
    "logits": [[-1.2, 2.0, 0.3, -0.4], [0.8, -1.5, 0.1, 2.2], [0.2, 3.0, -2.5, -0.1]],
    "onehot": [[0, 1, 0, 0], [0, 0, 0, 1], [1, 0, 0, 0]],
    "sparse": [1, 3, 0],
    "signed": [[-1, 1, 1, -1], [1, -1, -1, 1], [1, 1, -1, -1]],
    "reg_true": [[0.5, 1.5, -2.0, 3.0], [1.0, 0.2, 0.0, -1.0], [2.5, 2.0, 1.0, 0.5]],
    "reg_pred": [[0.7, 1.0, -1.0, 2.5], [0.2, 0.3, 0.5, -3.0], [2.0, 2.6, 0.9, 1.5]],
    "embeddings": [[0.6, 0.8, 0.0], [0.0, 0.6, 0.8], [0.8, 0.0, 0.6], [0.48, 0.64, 0.6]],
    "embedding_labels": [0, 1, 0, 1],
    "sample_weight": [0.5, 1.0, 2.0, 1.5],
}
# name -> (class name, kwargs, y_true key, y_pred key)
CASES = {
    "binary_crossentropy": ("BinaryCrossentropy", {}, "binary_true", "probs"),
    "binary_focal": ("BinaryFocalCrossentropy", {}, "binary_true", "probs"),
    "binary_focal_options": ("BinaryFocalCrossentropy",
                             {"apply_class_balancing": True, "alpha": 0.4, "gamma": 1.5,
                              "from_logits": True, "label_smoothing": 0.1},
                             "binary_true", "logits"),
    "categorical_focal": ("CategoricalFocalCrossentropy", {}, "onehot", "probs"),
    "categorical_focal_options": ("CategoricalFocalCrossentropy",
                                  {"alpha": 0.5, "gamma": 1.0, "from_logits": True,
                                   "label_smoothing": 0.2}, "onehot", "logits"),
    "generalized_ce": ("CategoricalGeneralizedCrossEntropy", {"q": 0.7}, "sparse", "probs"),
    "categorical_hinge": ("CategoricalHinge", {}, "onehot", "logits"),
    "hinge": ("Hinge", {}, "binary_true", "logits"),
    "squared_hinge": ("SquaredHinge", {}, "signed", "logits"),
    "cosine_similarity": ("CosineSimilarity", {}, "reg_true", "reg_pred"),
    "cosine_similarity_axis0": ("CosineSimilarity", {"axis": 0}, "reg_true", "reg_pred"),
    "log_cosh": ("LogCosh", {}, "reg_true", "reg_pred"),
    "huber": ("Huber", {"delta": 0.7}, "reg_true", "reg_pred"),
    "poisson": ("Poisson", {}, "binary_true", "probs"),
    "kl_divergence": ("KLDivergence", {}, "onehot", "probs"),
    "msle": ("MeanSquaredLogarithmicError", {}, "reg_true", "reg_pred"),
    "mape": ("MeanAbsolutePercentageError", {}, "reg_true", "reg_pred"),
    "dice": ("Dice", {}, "binary_true", "probs"),
    "dice_axis": ("Dice", {"axis": -1}, "binary_true", "probs"),
    "tversky": ("Tversky", {}, "binary_true", "probs"),
    "tversky_axis": ("Tversky", {"alpha": 0.3, "beta": 0.7, "axis": -1}, "binary_true",
                     "probs"),
    "circle": ("Circle", {}, "embedding_labels", "embeddings"),
    "circle_options": ("Circle", {"gamma": 10.0, "margin": 0.25, "remove_diagonal": False},
                       "embedding_labels", "embeddings"),
}


def main():
    values = {"inputs": INPUTS, "cases": {}}
    for case, (class_name, kwargs, true_key, pred_key) in CASES.items():
        y_true = np.array(INPUTS[true_key], dtype="float32")
        y_pred = np.array(INPUTS[pred_key], dtype="float32")
        # one weight per loss value (a scalar weight where the loss is one value per batch)
        shape = np.shape(getattr(keras.losses, class_name)(reduction="none", **kwargs)(
            y_true, y_pred))
        weight = np.array(INPUTS["sample_weight"][:shape[0]] if shape else 2.0,
                          dtype="float32")
        record = {"class_name": class_name, "kwargs": kwargs, "y_true": true_key,
                  "y_pred": pred_key}
        for reduction in ("sum_over_batch_size", "sum", "none"):
            loss = getattr(keras.losses, class_name)(reduction=reduction, **kwargs)
            record[reduction] = np.asarray(loss(y_true, y_pred)).tolist()
            record[reduction + "_weighted"] = np.asarray(
                loss(y_true, y_pred, sample_weight=weight)).tolist()
        record["config"] = getattr(keras.losses, class_name)(**kwargs).get_config()
        values["cases"][case] = record
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "keras_loss_values.json")
    with open(path, "w") as f:
        json.dump(values, f, indent=1)


if __name__ == "__main__":
    main()

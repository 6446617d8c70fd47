"""Regenerates keras_metric_values.json: Keras 3.15 metrics (torch backend) updated with two
batches (the second with sample_weight), their results after each update and their
configs. Run: KERAS_BACKEND=torch /work/kvenv/bin/python THIS_FILE"""

import json
import os

import keras
import numpy as np

RNG = np.random.default_rng(3)
PROBS = RNG.uniform(0.01, 0.99, size=(2, 6, 3)).round(3)
LABELS = (RNG.uniform(size=(2, 6, 3)) > 0.5).astype("float32")
ONEHOT = np.eye(3)[RNG.integers(0, 3, size=(2, 6))]
SPARSE = RNG.integers(0, 3, size=(2, 6)).astype("float32")
SPARSE_PRED = RNG.integers(0, 3, size=(2, 6)).astype("float32")
REG_TRUE = RNG.normal(size=(2, 6, 3)).round(3)
REG_PRED = (REG_TRUE + RNG.normal(scale=0.5, size=(2, 6, 3))).round(3)
BINARY = (RNG.uniform(size=(2, 6)) > 0.5).astype("float32")
SCORES = RNG.uniform(size=(2, 6)).round(3)
WEIGHTS = [1.0, 2.0, 0.0, 1.0, 3.0, 1.0]
INPUTS = {"probs": PROBS, "labels": LABELS, "onehot": ONEHOT, "sparse": SPARSE,
          "sparse_pred": SPARSE_PRED, "reg_true": REG_TRUE, "reg_pred": REG_PRED,
          "binary": BINARY, "scores": SCORES}
# name -> (class name, kwargs, y_true key, y_pred key)
CASES = {
    "r2": ("R2Score", {}, "reg_true", "reg_pred"),
    "r2_variance_weighted": ("R2Score", {"class_aggregation": "variance_weighted_average"},
                             "reg_true", "reg_pred"),
    "r2_raw_adjusted": ("R2Score", {"class_aggregation": None, "num_regressors": 2},
                        "reg_true", "reg_pred"),
    "f1": ("F1Score", {}, "labels", "probs"),
    "f1_micro_threshold": ("F1Score", {"average": "micro", "threshold": 0.5}, "labels",
                           "probs"),
    "fbeta_macro": ("FBetaScore", {"average": "macro", "beta": 2.0}, "labels", "probs"),
    "fbeta_weighted": ("FBetaScore", {"average": "weighted", "beta": 0.5, "threshold": 0.4},
                       "labels", "probs"),
    "iou": ("IoU", {"num_classes": 3, "target_class_ids": [0, 2]}, "sparse", "sparse_pred"),
    "mean_iou": ("MeanIoU", {"num_classes": 3}, "sparse", "sparse_pred"),
    "binary_iou": ("BinaryIoU", {"target_class_ids": [1], "threshold": 0.4}, "binary",
                   "scores"),
    "one_hot_iou": ("OneHotIoU", {"num_classes": 3, "target_class_ids": [1]}, "onehot",
                    "probs"),
    "one_hot_mean_iou": ("OneHotMeanIoU", {"num_classes": 3}, "onehot", "probs"),
    "precision_at_recall": ("PrecisionAtRecall", {"recall": 0.6}, "binary", "scores"),
    "recall_at_precision": ("RecallAtPrecision", {"precision": 0.5, "num_thresholds": 50},
                            "binary", "scores"),
    "sensitivity_at_specificity": ("SensitivityAtSpecificity", {"specificity": 0.5},
                                   "binary", "scores"),
    "specificity_at_sensitivity": ("SpecificityAtSensitivity", {"sensitivity": 0.7,
                                                                 "class_id": 1},
                                   "labels", "probs"),
    "cosine_similarity": ("CosineSimilarity", {}, "reg_true", "reg_pred"),
    "cosine_similarity_axis0": ("CosineSimilarity", {"axis": 0}, "reg_true", "reg_pred"),
    "log_cosh_error": ("LogCoshError", {}, "reg_true", "reg_pred"),
    "poisson": ("Poisson", {}, "labels", "probs"),
    "kl_divergence": ("KLDivergence", {}, "onehot", "probs"),
    "hinge": ("Hinge", {}, "labels", "reg_pred"),
    "squared_hinge": ("SquaredHinge", {}, "labels", "reg_pred"),
    "categorical_hinge": ("CategoricalHinge", {}, "onehot", "reg_pred"),
    "msle": ("MeanSquaredLogarithmicError", {}, "labels", "probs"),
    "mape": ("MeanAbsolutePercentageError", {}, "reg_true", "reg_pred"),
    "rmse": ("RootMeanSquaredError", {}, "reg_true", "reg_pred"),
    "pearson": ("PearsonCorrelation", {}, "reg_true", "reg_pred"),
    "concordance": ("ConcordanceCorrelation", {}, "reg_true", "reg_pred"),
    "sparse_top_k": ("SparseTopKCategoricalAccuracy", {"k": 2}, "sparse", "probs"),
}


def main():
    values = {"inputs": {k: v.tolist() for k, v in INPUTS.items()}, "weights": WEIGHTS,
              "cases": {}}
    for case, (class_name, kwargs, true_key, pred_key) in CASES.items():
        metric = getattr(keras.metrics, class_name)(**kwargs)
        y_true, y_pred = INPUTS[true_key], INPUTS[pred_key]
        metric.update_state(y_true[0].astype("float32"), y_pred[0].astype("float32"))
        first = np.asarray(metric.result()).tolist()
        # one weight per value the metric averages (axis=0 leaves one per column)
        weights = WEIGHTS[:3] if kwargs.get("axis") == 0 else WEIGHTS
        metric.update_state(y_true[1].astype("float32"), y_pred[1].astype("float32"),
                            sample_weight=np.array(weights, dtype="float32"))
        both = np.asarray(metric.result()).tolist()
        values["cases"][case] = {"class_name": class_name, "kwargs": kwargs,
                                 "y_true": true_key, "y_pred": pred_key, "first": first,
                                 "both": both, "config": metric.get_config()}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "keras_metric_values.json")
    with open(path, "w") as f:
        json.dump(values, f, indent=1)


if __name__ == "__main__":
    main()

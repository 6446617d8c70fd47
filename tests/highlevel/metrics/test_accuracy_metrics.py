"""Accuracy metrics (``highlevel/metrics/accuracy_metrics.py``) against Keras 3.15's results
over two batches with sample weights, reset and config round trip."""

from harness.keras_metrics import keras_metric_test

test_matches_keras = keras_metric_test(
    "SparseTopKCategoricalAccuracy")

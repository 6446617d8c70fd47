"""Regression metrics (``highlevel/metrics/regression_metrics.py``) against Keras 3.15's results over two
batches with sample weights, reset and config round trip."""

import pytest
from harness.keras_metrics import cases, check_matches_keras

CASES = cases("R2Score", "CosineSimilarity", "LogCoshError", "MeanSquaredLogarithmicError",
               "MeanAbsolutePercentageError", "RootMeanSquaredError")


@pytest.mark.parametrize("case", CASES)
def test_matches_keras(case):
    check_matches_keras(case)

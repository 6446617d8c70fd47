"""Constrained-rate metrics (``highlevel/metrics/sensitivity_metrics.py``) against Keras 3.15's results over two
batches with sample weights, reset and config round trip."""

import pytest
from harness.keras_metrics import cases, check_matches_keras

CASES = cases("PrecisionAtRecall", "RecallAtPrecision", "SensitivityAtSpecificity",
               "SpecificityAtSensitivity")


@pytest.mark.parametrize("case", CASES)
def test_matches_keras(case):
    check_matches_keras(case)

"""Regression losses (``highlevel/losses/regression.py``) against Keras 3.15's values, with gradients."""

import pytest
from harness.keras_losses import cases, check_gradient, check_matches_keras

CASES = cases("CosineSimilarity", "LogCosh", "Huber", "MeanSquaredLogarithmicError",
               "MeanAbsolutePercentageError")


@pytest.mark.parametrize("case", CASES)
def test_matches_keras(case):
    check_matches_keras(case)


@pytest.mark.parametrize("case", CASES)
def test_gradient(case):
    # mape divides by max(|y_true|, 1e-7): a zero target makes its loss ~1e8, where
    # central differences keep only ~4 significant digits
    check_gradient(case, rtol=2e-3 if case == "mape" else 1e-5)

"""Dice and Tversky (``highlevel/losses/segmentation.py``) against Keras 3.15's values, with gradients."""

import pytest
from harness.keras_losses import cases, check_gradient, check_matches_keras

CASES = cases("Dice", "Tversky")


@pytest.mark.parametrize("case", CASES)
def test_matches_keras(case):
    check_matches_keras(case)


@pytest.mark.parametrize("case", CASES)
def test_gradient(case):
    check_gradient(case)

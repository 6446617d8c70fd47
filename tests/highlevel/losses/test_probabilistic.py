"""Probabilistic losses (``highlevel/losses/probabilistic.py``) against Keras 3.15's values, with gradients."""

import pytest
from harness.keras_losses import cases, check_gradient, check_matches_keras

CASES = cases("BinaryCrossentropy", "BinaryFocalCrossentropy", "CategoricalFocalCrossentropy",
               "CategoricalGeneralizedCrossEntropy", "KLDivergence", "Poisson")


@pytest.mark.parametrize("case", CASES)
def test_matches_keras(case):
    check_matches_keras(case)


@pytest.mark.parametrize("case", CASES)
def test_gradient(case):
    check_gradient(case)

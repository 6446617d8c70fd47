"""Hinge losses (``highlevel/losses/hinge.py``) against Keras 3.15's values, with gradients."""

import pytest
from harness.keras_losses import cases, check_gradient, check_matches_keras

CASES = cases("Hinge", "SquaredHinge", "CategoricalHinge")


@pytest.mark.parametrize("case", CASES)
def test_matches_keras(case):
    check_matches_keras(case)


@pytest.mark.parametrize("case", CASES)
def test_gradient(case):
    check_gradient(case)

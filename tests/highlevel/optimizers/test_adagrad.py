"""Adagrad: three steps against Keras' formula (defaults, and another initial accumulator
value and epsilon)."""

import pytest

from harness.optimizer_formulas import check_three_steps, ref_adagrad
from lamina.highlevel import optimizers


@pytest.mark.parametrize("optimizer, expected", [
    (optimizers.Adagrad(learning_rate=0.1), ref_adagrad(0.1)),
    (optimizers.Adagrad(learning_rate=0.1, initial_accumulator_value=1.0, epsilon=1e-3),
     ref_adagrad(0.1, 1.0, 1e-3)),
])
def test_three_steps_match_keras_formulas(optimizer, expected):
    check_three_steps(optimizer, expected)

"""RMSprop: three steps against Keras' formula (plain, rho and momentum, centred)."""

import pytest

from harness.optimizer_formulas import check_three_steps, ref_rmsprop
from lamina.highlevel import optimizers


@pytest.mark.parametrize("optimizer, expected", [
    (optimizers.RMSprop(learning_rate=0.01), ref_rmsprop(0.01)),
    (optimizers.RMSprop(learning_rate=0.01, rho=0.8, momentum=0.5),
     ref_rmsprop(0.01, 0.8, 0.5)),
    (optimizers.RMSprop(learning_rate=0.01, centered=True), ref_rmsprop(0.01, centered=True)),
])
def test_three_steps_match_keras_formulas(optimizer, expected):
    check_three_steps(optimizer, expected)

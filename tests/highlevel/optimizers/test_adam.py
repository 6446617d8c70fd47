"""Adam: three steps against Keras' formula (plain, other betas and epsilon, AMSGrad)."""

import pytest

from harness.optimizer_formulas import check_three_steps, ref_adam
from lamina.highlevel import optimizers


@pytest.mark.parametrize("optimizer, expected", [
    (optimizers.Adam(learning_rate=0.1), ref_adam(0.1)),
    (optimizers.Adam(learning_rate=0.1, beta_1=0.8, beta_2=0.9, epsilon=1e-3),
     ref_adam(0.1, 0.8, 0.9, 1e-3)),
    (optimizers.Adam(learning_rate=0.1, amsgrad=True), ref_adam(0.1, amsgrad=True)),
])
def test_three_steps_match_keras_formulas(optimizer, expected):
    check_three_steps(optimizer, expected)

"""AdamW: three steps against Keras' formula (Adam with decoupled weight decay, its default
0.004, and with AMSGrad)."""

import pytest

from harness.optimizer_formulas import check_three_steps, ref_adam
from lamina.highlevel import optimizers


@pytest.mark.parametrize("optimizer, expected", [
    (optimizers.AdamW(learning_rate=0.1), ref_adam(0.1, weight_decay=0.004)),
    (optimizers.AdamW(learning_rate=0.1, weight_decay=0.3, amsgrad=True),
     ref_adam(0.1, amsgrad=True, weight_decay=0.3)),
])
def test_three_steps_match_keras_formulas(optimizer, expected):
    check_three_steps(optimizer, expected)

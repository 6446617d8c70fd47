"""SGD: three steps against Keras' formula (plain, momentum, Nesterov, weight decay)."""

import pytest

from harness.optimizer_formulas import check_three_steps, ref_sgd
from lamina.highlevel import optimizers


@pytest.mark.parametrize("optimizer, expected", [
    (optimizers.SGD(), ref_sgd()),
    (optimizers.SGD(learning_rate=0.1, momentum=0.9), ref_sgd(0.1, 0.9)),
    (optimizers.SGD(learning_rate=0.1, momentum=0.9, nesterov=True), ref_sgd(0.1, 0.9, True)),
    (optimizers.SGD(learning_rate=0.1, weight_decay=0.05), ref_sgd(0.1, weight_decay=0.05)),
])
def test_three_steps_match_keras_formulas(optimizer, expected):
    check_three_steps(optimizer, expected)

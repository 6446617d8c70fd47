"""Checks of lamina's losses against the values real Keras 3.15 computed on fixed inputs
(``tests/highlevel/losses/keras_loss_values.json``, written by
``tests/highlevel/losses/make_keras_loss_values.py``), and their finite-difference
gradients with respect to ``y_pred``."""

import json
from pathlib import Path

import numpy as np
import pytest

import lamina
from lamina import losses

from .ops import numerical_gradient

VALUES = json.loads((Path(__file__).resolve().parents[1] / "highlevel" / "losses"
                     / "keras_loss_values.json").read_text())
REDUCTIONS = ("sum_over_batch_size", "sum", "none")


def cases(*class_names):
    """The recorded case names whose loss class is one of ``class_names``."""
    return sorted(name for name, case in VALUES["cases"].items()
                  if case["class_name"] in class_names)


def inputs(case):
    """``(y_true, y_pred, sample_weight)`` of a case as float32 NumPy arrays (one weight per
    loss value, or a scalar where the loss is one value per batch)."""
    record = VALUES["cases"][case]
    y_true = np.array(VALUES["inputs"][record["y_true"]], dtype="float32")
    y_pred = np.array(VALUES["inputs"][record["y_pred"]], dtype="float32")
    shape = np.shape(record["none"])
    weight = np.array(VALUES["inputs"]["sample_weight"][:shape[0]] if shape else 2.0,
                      dtype="float32")
    return y_true, y_pred, weight


def check_matches_keras(case):
    """Every reduction, with and without ``sample_weight``, equals Keras' value; the config
    holds Keras' keys and values (plus any constructor argument Keras 3.15 leaves out of
    it, e.g. Huber's ``delta``, so that a round trip keeps it) and round-trips through
    serialize/deserialize."""
    record = VALUES["cases"][case]
    cls = getattr(losses, record["class_name"])
    y_true, y_pred, weight = inputs(case)
    for reduction in REDUCTIONS:
        loss = cls(reduction=reduction, **record["kwargs"])
        value = loss(y_true, y_pred)
        assert value.dtype == np.float32
        np.testing.assert_allclose(value.numpy(), record[reduction], rtol=2e-5, atol=2e-6,
                                   err_msg=f"{case} reduction={reduction}")
        np.testing.assert_allclose(loss(y_true, y_pred, sample_weight=weight).numpy(),
                                   record[reduction + "_weighted"], rtol=2e-5, atol=2e-6,
                                   err_msg=f"{case} reduction={reduction}, weighted")
    loss = cls(**record["kwargs"])
    config = loss.get_config()
    assert {key: config[key] for key in record["config"]} == record["config"]
    extra = set(config) - set(record["config"])
    assert all(key in record["kwargs"] or key == "axis" for key in extra)
    again = losses.deserialize(losses.serialize(loss))
    assert type(again) is cls and again.get_config() == config


def check_gradient(case, rtol=1e-5, atol=1e-7):
    """The gradient of the weighted ``sum_over_batch_size`` loss with respect to ``y_pred``
    (float64) equals central finite differences."""
    record = VALUES["cases"][case]
    loss = getattr(losses, record["class_name"])(**record["kwargs"])
    y_true, y_pred, weight = (x.astype("float64") for x in inputs(case))
    prediction = lamina.Variable(y_pred.copy(), dtype="float64")
    (gradient,) = lamina.grad(loss(y_true, prediction, sample_weight=weight), [prediction])
    expected = numerical_gradient(
        lambda: float(loss(y_true, lamina.Tensor(y_pred), sample_weight=weight).numpy()),
        y_pred)
    np.testing.assert_allclose(np.asarray(gradient), expected, rtol=rtol, atol=atol)
    return expected


def keras_loss_tests(*class_names, gradient_rtol=None):
    """The two tests of a loss module: ``test_matches_keras`` and ``test_gradient`` over the
    recorded cases of ``class_names`` (``gradient_rtol``: case -> tolerance overrides).
    Assign them to module-level names so that pytest collects them."""
    names = cases(*class_names)

    @pytest.mark.parametrize("case", names)
    def test_matches_keras(case):
        check_matches_keras(case)

    @pytest.mark.parametrize("case", names)
    def test_gradient(case):
        check_gradient(case, rtol=(gradient_rtol or {}).get(case, 1e-5))

    return test_matches_keras, test_gradient

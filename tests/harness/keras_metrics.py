"""Checks of lamina's metrics against real Keras 3.15 on fixed inputs
(``tests/highlevel/metrics/keras_metric_values.json``, written by
``tests/highlevel/metrics/make_keras_metric_values.py``): the result after one batch,
after a second, weighted batch, after ``reset_state``, and the config round trip."""

import json
from pathlib import Path

import numpy as np
import pytest

from lamina import metrics

VALUES = json.loads((Path(__file__).resolve().parents[1] / "highlevel" / "metrics"
                     / "keras_metric_values.json").read_text())


def cases(*class_names):
    """The recorded case names whose metric class is one of ``class_names``."""
    return sorted(name for name, case in VALUES["cases"].items()
                  if case["class_name"] in class_names)


def check_matches_keras(case, rtol=2e-5, atol=2e-6):
    """Two updates (the second weighted) give Keras' results; ``reset_state`` then the
    same two updates give them again; the config holds Keras' keys and values and
    rebuilds an equal metric."""
    record = VALUES["cases"][case]
    cls = getattr(metrics, record["class_name"])
    y_true = np.array(VALUES["inputs"][record["y_true"]], dtype="float32")
    y_pred = np.array(VALUES["inputs"][record["y_pred"]], dtype="float32")
    weights = np.array(VALUES["weights"][:3] if record["kwargs"].get("axis") == 0
                       else VALUES["weights"], dtype="float32")
    metric = cls(**record["kwargs"])
    for _ in range(2):
        metric.update_state(y_true[0], y_pred[0])
        np.testing.assert_allclose(metric.result(), record["first"], rtol=rtol, atol=atol,
                                   err_msg=f"{case}: after one batch")
        metric.update_state(y_true[1], y_pred[1], sample_weight=weights)
        np.testing.assert_allclose(metric.result(), record["both"], rtol=rtol, atol=atol,
                                   err_msg=f"{case}: after a second, weighted batch")
        metric.reset_state()
    config = metric.get_config()
    assert {key: config[key] for key in record["config"]} == record["config"]
    rebuilt = metrics.deserialize(metrics.serialize(metric))
    assert type(rebuilt) is cls and rebuilt.get_config() == config


def keras_metric_test(*class_names):
    """``test_matches_keras`` over the recorded cases of ``class_names`` (assign it to a
    module-level name so that pytest collects it)."""

    @pytest.mark.parametrize("case", cases(*class_names))
    def test_matches_keras(case):
        check_matches_keras(case)

    return test_matches_keras

"""The Metric base class (``highlevel/metrics/metric.py``): Keras 3's ``add_variable``
state, so a custom metric written the Keras way works in ``update_state`` / ``result`` /
``reset_state`` and in ``fit``."""

import numpy as np
import pytest

import lamina
from lamina import metrics, ops


class BinaryTruePositives(metrics.Metric):
    """Keras' documented custom-metric example (keras.io/api/metrics, "Creating custom
    metrics"), with ``ops.logical_and`` written as a product of the two 0/1 masks."""

    def __init__(self, name="binary_true_positives", **kwargs):
        super().__init__(name=name, **kwargs)
        self.true_positives = self.add_variable(shape=(), initializer="zeros",
                                                name="true_positives")

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = ops.cast(y_true, "bool")
        y_pred = ops.cast(y_pred, "bool")
        values = ops.multiply(ops.cast(ops.equal(y_true, True), self.dtype),
                              ops.cast(ops.equal(y_pred, True), self.dtype))
        if sample_weight is not None:
            sample_weight = ops.cast(sample_weight, self.dtype)
            values = ops.multiply(values, sample_weight)
        self.true_positives.assign(self.true_positives + ops.sum(values))

    def result(self):
        return self.true_positives


def test_keras_custom_metric_example():
    metric = BinaryTruePositives()
    metric.update_state(np.array([1, 1, 0, 1]), np.array([1, 0, 1, 1]))
    assert float(metric.result()) == 2.0
    metric.update_state(np.array([1, 1]), np.array([1, 1]), sample_weight=np.array([0.5, 2.0]))
    assert float(metric.result()) == 4.5
    assert metric.variables == [metric.true_positives]
    assert not metric.true_positives.trainable
    metric.reset_state()
    assert float(metric.result()) == 0.0


def test_custom_metric_in_fit_logs_its_result():
    model = lamina.Sequential([lamina.Input((2,)), lamina.layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer="sgd", loss="binary_crossentropy",
                  metrics=[BinaryTruePositives()])
    x = np.random.default_rng(0).normal(size=(16, 2)).astype("float32")
    y = (x[:, :1] > 0).astype("float32")
    history = model.fit(x, y, epochs=1, batch_size=8, verbose=0)
    assert "binary_true_positives" in history.history


def test_add_variable_initializers_assign_add_and_aggregation():
    metric = metrics.Metric(name="m")
    counts = metric.add_variable((3,), lamina.initializers.Constant(2.0), name="counts")
    ones = metric.add_weight(shape=(2,), initializer="ones", dtype="float64")
    counts.assign_add(np.array([1.0, 2.0, 3.0]))
    counts.assign_sub(np.array([0.5, 0.5, 0.5]))
    np.testing.assert_array_equal(counts.numpy(), [2.5, 3.5, 4.5])
    assert counts.dtype == np.float32 and ones.dtype == np.float64
    metric.reset_state()
    np.testing.assert_array_equal(counts.numpy(), [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(ones.numpy(), [1.0, 1.0])
    with pytest.raises(ValueError, match="aggregation"):
        metric.add_variable((), "zeros", aggregation="max")

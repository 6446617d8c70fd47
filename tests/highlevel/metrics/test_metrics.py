"""Metrics against scikit-learn and hand computations, accumulated over several batches,
with sample weights, reset, Keras' accuracy resolution and names, and config round trips
(the confusion-matrix metrics are in test_confusion_metrics.py)."""

import numpy as np
import pytest
from sklearn import metrics as skm

import lamina
from harness.metrics import feed
from lamina.highlevel.losses import losses
from lamina.highlevel.metrics import metrics

RNG = np.random.default_rng(3)


RNG = np.random.default_rng(3)


def test_mean_weighted_accumulation_and_reset():
    m = metrics.Mean()
    m.update_state([1.0, 2.0, 3.0])
    m.update_state(np.array([[4.0, 6.0]]), sample_weight=[2.0])   # row mean 5, weight 2
    assert m.result() == pytest.approx((1 + 2 + 3 + 2 * 5) / 5)
    assert isinstance(m.result(), float)
    m.reset_state()
    assert m.result() == 0.0
    m.update_state(3.0, sample_weight=4)         # scalar value weighted by a batch size
    m.update_state(1.0, sample_weight=2)
    assert m.result() == pytest.approx((12 + 2) / 6)


def test_accuracies_match_hand_computation():
    scores = RNG.random((40, 5)).astype("float32")
    labels = RNG.integers(0, 5, 40)
    onehot = np.eye(5)[labels]
    hits = (scores.argmax(-1) == labels).astype(float)
    weights = RNG.uniform(0, 2, 40)
    assert feed(metrics.SparseCategoricalAccuracy(), labels, scores) == pytest.approx(hits.mean())
    assert feed(metrics.SparseCategoricalAccuracy(), labels.reshape(-1, 1).astype(float),
                scores) == pytest.approx(hits.mean())
    assert feed(metrics.CategoricalAccuracy(), onehot, scores, sample_weight=weights) == \
        pytest.approx((hits * weights).sum() / weights.sum())
    binary = RNG.integers(0, 2, (40, 1))
    probs = RNG.random((40, 1))
    for threshold in (0.5, 0.3):
        expected = ((probs > threshold) == binary).mean()
        assert feed(metrics.BinaryAccuracy(threshold=threshold), binary, probs) == \
            pytest.approx(expected)
    assert feed(metrics.BinaryAccuracy(), binary[:, 0], probs) == \
        pytest.approx(((probs > 0.5) == binary).mean())
    exact = metrics.Accuracy()
    exact.update_state([[1], [2], [3], [4]], [[0], [2], [3], [4]])
    assert exact.result() == pytest.approx(0.75)


def test_top_k_accuracies_match_sklearn():
    scores = RNG.random((60, 6))
    labels = RNG.integers(0, 6, 60)
    for k in (1, 3, 5):
        expected = skm.top_k_accuracy_score(labels, scores, k=k, labels=range(6))
        assert feed(metrics.SparseTopKCategoricalAccuracy(k=k), labels, scores) == \
            pytest.approx(expected)
        assert feed(metrics.TopKCategoricalAccuracy(k=k), np.eye(6)[labels], scores) == \
            pytest.approx(expected)
    assert metrics.TopKCategoricalAccuracy().get_config()["k"] == 5


def test_regression_metrics_match_sklearn():
    y = RNG.normal(size=(50, 1))
    p = y + RNG.normal(size=(50, 1))
    w = RNG.uniform(0.1, 2, 50)
    assert feed(metrics.MeanSquaredError(), y, p, sample_weight=w) == \
        pytest.approx(skm.mean_squared_error(y, p, sample_weight=w))
    assert feed(metrics.MeanAbsoluteError(), y, p) == \
        pytest.approx(skm.mean_absolute_error(y, p))
    assert feed(metrics.RootMeanSquaredError(), y, p) == \
        pytest.approx(np.sqrt(skm.mean_squared_error(y, p)))
    y2 = RNG.uniform(1, 2, (30, 3))
    p2 = RNG.uniform(1, 2, (30, 3))
    assert feed(metrics.MeanAbsolutePercentageError(), y2, p2) == \
        pytest.approx(100 * skm.mean_absolute_percentage_error(y2, p2), rel=1e-6)


def test_crossentropy_metrics_equal_the_losses():
    logits = RNG.normal(size=(20, 4))
    labels = RNG.integers(0, 4, 20)
    metric = metrics.SparseCategoricalCrossentropy(from_logits=True)
    expected = float(losses.SparseCategoricalCrossentropy(from_logits=True)(labels, logits))
    assert feed(metric, labels, logits) == pytest.approx(expected, rel=1e-6)
    probs = RNG.uniform(0.05, 0.95, (20, 1))
    binary = RNG.integers(0, 2, (20, 1))
    expected = float(losses.BinaryCrossentropy()(binary, probs))
    assert feed(metrics.BinaryCrossentropy(), binary, probs) == pytest.approx(expected)


def test_metrics_do_not_record_a_graph():
    scores = lamina.Tensor(RNG.random((4, 3)), requires_grad=True)
    m = metrics.CategoricalCrossentropy()
    m.update_state(np.eye(3)[[0, 1, 2, 0]], scores)
    assert isinstance(m.result(), float)
    assert isinstance(metrics.AUC()(np.array([0, 1]), scores[:2, 0]), float)


# ------------------------------------------------------------------ get / names / config
@pytest.mark.parametrize("loss, shape, y_shape, expected", [
    ("binary_crossentropy", (None, 3), None, metrics.BinaryAccuracy),
    (losses.BinaryCrossentropy(from_logits=True), (None, 3), None, metrics.BinaryAccuracy),
    ("mse", (None, 1), None, metrics.BinaryAccuracy),
    ("sparse_categorical_crossentropy", (None, 4), None, metrics.SparseCategoricalAccuracy),
    (losses.SparseCategoricalCrossentropy(from_logits=True), (None, 4), None,
     metrics.SparseCategoricalAccuracy),
    ("categorical_crossentropy", (None, 4), None, metrics.CategoricalAccuracy),
    (None, (None, 4), (None,), metrics.SparseCategoricalAccuracy),
    (None, (None, 4), (None, 4), metrics.CategoricalAccuracy),
])
def test_accuracy_resolution(loss, shape, y_shape, expected):
    for identifier in ("accuracy", "acc"):
        metric = metrics.get(identifier, loss=loss, output_shape=shape, y_true_shape=y_shape)
        assert type(metric) is expected and metric.name == identifier


def test_names_as_keras_logs_them():
    assert metrics.get("mae").name == "mae"
    assert isinstance(metrics.get("mae"), metrics.MeanAbsoluteError)
    assert metrics.get("mse").name == "mse"
    assert metrics.MeanAbsoluteError().name == "mean_absolute_error"
    assert metrics.get("mean_squared_error").name == "mean_squared_error"
    assert isinstance(metrics.get("auc"), metrics.AUC)
    assert metrics.AUC().name == "auc" and metrics.Precision().name == "precision"
    instance = metrics.Recall()
    assert metrics.get(instance) is instance
    assert isinstance(metrics.get(metrics.Precision), metrics.Precision)

    def my_metric(y_true, y_pred):
        return np.abs(y_true - y_pred)

    custom = metrics.get(my_metric)
    assert custom.name == "my_metric"
    custom.update_state(np.zeros(4), np.ones(4))
    assert custom.result() == 1.0


def test_unknown_metric_lists_known_names():
    with pytest.raises(ValueError, match="sparse_categorical_accuracy"):
        metrics.get("sparse_categorical_acuracy")


@pytest.mark.parametrize("metric", [
    metrics.Mean(name="m"), metrics.BinaryAccuracy(threshold=0.3),
    metrics.SparseTopKCategoricalAccuracy(k=2), metrics.TopKCategoricalAccuracy(k=3),
    metrics.Precision(thresholds=[0.2, 0.6], class_id=1), metrics.Recall(top_k=2),
    metrics.AUC(num_thresholds=50, curve="PR"), metrics.AUC(thresholds=[0.2, 0.5]),
    metrics.MeanSquaredError(), metrics.CategoricalCrossentropy(from_logits=True),
], ids=lambda m: m.name)
def test_config_round_trip(metric):
    config = metric.get_config()
    clone = type(metric).from_config(config)
    assert clone.get_config() == config
    assert metrics.deserialize(metrics.serialize(metric)).get_config() == config


# ------------------------------------------------------------ every Keras 3.15 metric name
KERAS_METRIC_CLASSES = [
    "BinaryIoU", "CategoricalHinge", "ConcordanceCorrelation", "CosineSimilarity", "F1Score",
    "FBetaScore", "IoU", "MeanIoU", "OneHotIoU", "OneHotMeanIoU", "PearsonCorrelation",
    "PrecisionAtRecall", "R2Score", "RecallAtPrecision", "SensitivityAtSpecificity",
    "SpecificityAtSensitivity",
]
REQUIRED_ARGUMENTS = {"IoU": {"num_classes": 2, "target_class_ids": [0]},
                      "MeanIoU": {"num_classes": 2},
                      "OneHotIoU": {"num_classes": 2, "target_class_ids": [0]},
                      "OneHotMeanIoU": {"num_classes": 2}, "PrecisionAtRecall": {"recall": 0.5},
                      "RecallAtPrecision": {"precision": 0.5},
                      "SensitivityAtSpecificity": {"specificity": 0.5},
                      "SpecificityAtSensitivity": {"sensitivity": 0.5}}


@pytest.mark.parametrize("name", KERAS_METRIC_CLASSES)
def test_new_metric_classes_resolve_by_name(name):
    cls = getattr(metrics, name)
    if name not in REQUIRED_ARGUMENTS:
        assert type(metrics.get(name)) is cls
    metric = cls(**REQUIRED_ARGUMENTS.get(name, {}))
    assert metrics.deserialize({"class_name": name, "config": metric.get_config()}) \
        .get_config() == metric.get_config()


def test_metric_functions_are_keras_functions():
    y_true = np.array([[0.0, 1.0], [1.0, 0.0]], dtype="float32")
    y_pred = np.array([[0.2, 0.8], [0.6, 0.4]], dtype="float32")
    for name in ("binary_crossentropy", "categorical_crossentropy", "hinge", "squared_hinge",
                 "kl_divergence", "poisson", "log_cosh", "categorical_hinge", "huber",
                 "mean_squared_logarithmic_error", "binary_focal_crossentropy",
                 "categorical_focal_crossentropy", "pearson_correlation",
                 "concordance_correlation"):
        values = np.asarray(getattr(metrics, name)(y_true, y_pred))
        assert values.shape == (2,), name
        wrapper = metrics.get(name)
        wrapper.update_state(y_true, y_pred)
        assert float(wrapper.result()) == pytest.approx(float(values.mean()), rel=1e-6)
    np.testing.assert_allclose(metrics.sparse_categorical_crossentropy([1, 0], y_pred),
                               -np.log([0.8, 0.6]), rtol=1e-6)


def test_sparse_top_k_from_sorted_ids():
    sorted_ids = np.array([[2, 0, 1], [1, 2, 0]], dtype="float32")
    np.testing.assert_array_equal(
        metrics.sparse_top_k_categorical_accuracy([0, 0], sorted_ids, k=2,
                                                  from_sorted_ids=True), [1.0, 0.0])


def test_metric_argument_errors_name_the_argument():
    with pytest.raises(ValueError, match="average"):
        metrics.F1Score(average="median")
    with pytest.raises(ValueError, match="beta"):
        metrics.FBetaScore(beta=2)
    with pytest.raises(ValueError, match="class_aggregation"):
        metrics.R2Score(class_aggregation="max")
    with pytest.raises(ValueError, match="out of range"):
        metrics.IoU(num_classes=2, target_class_ids=[2])
    with pytest.raises(ValueError, match="num_thresholds"):
        metrics.PrecisionAtRecall(0.5, num_thresholds=0)
    with pytest.raises(ValueError, match="2D"):
        metrics.R2Score().update_state(np.ones(3), np.ones(3))

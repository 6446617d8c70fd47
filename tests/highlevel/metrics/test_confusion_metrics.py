"""Confusion-matrix metrics (Precision, Recall, the weighted counts, AUC) against
scikit-learn and hand computations, over several batches, with sample weights, class_id,
top_k, thresholds, multi-label AUC and reset."""

import numpy as np
import pytest
from sklearn import metrics as skm

from harness.metrics import feed
from lamina.highlevel.metrics import metrics

RNG = np.random.default_rng(3)


def test_precision_recall_match_sklearn_with_weights_and_batches():
    y = RNG.integers(0, 2, 200)
    scores = np.clip(0.4 * y + 0.6 * RNG.random(200), 0, 1)
    w = RNG.uniform(0, 2, 200)
    for threshold in (0.5, 0.7):
        predicted = scores > threshold
        assert feed(metrics.Precision(thresholds=threshold), y, scores, sample_weight=w) == \
            pytest.approx(skm.precision_score(y, predicted, sample_weight=w))
        assert feed(metrics.Recall(thresholds=threshold), y, scores, sample_weight=w) == \
            pytest.approx(skm.recall_score(y, predicted, sample_weight=w))
    several = feed(metrics.Recall(thresholds=[0.3, 0.5, 0.9]), y, scores)
    np.testing.assert_allclose(several, [skm.recall_score(y, scores > t) for t in (0.3, 0.5, 0.9)],
                               rtol=1e-6)
    tp = metrics.TruePositives()
    assert feed(tp, y, scores) == pytest.approx(float(((scores > 0.5) & (y == 1)).sum()))


def test_precision_class_id_and_top_k():
    scores = RNG.random((30, 4))
    labels = np.eye(4)[RNG.integers(0, 4, 30)]
    got = feed(metrics.Precision(class_id=2), labels, scores)
    assert got == pytest.approx(skm.precision_score(labels[:, 2], scores[:, 2] > 0.5))
    top1 = feed(metrics.Precision(top_k=1), labels, scores)
    best = scores.argmax(-1)
    assert top1 == pytest.approx(labels[np.arange(30), best].mean())
    recall_top1 = feed(metrics.Recall(top_k=1), labels, scores)
    assert recall_top1 == pytest.approx(labels[np.arange(30), best].sum() / labels.sum())


def test_precision_without_positives_is_zero_and_reset_works():
    m = metrics.Precision()
    m.update_state([1, 0], [0.1, 0.2])
    assert m.result() == 0.0
    m.update_state([1, 0], [0.9, 0.2])
    assert m.result() == 1.0
    m.reset_state()
    assert m.result() == 0.0


def test_auc_roc_and_pr_match_sklearn():
    y = RNG.integers(0, 2, 2000)
    scores = np.clip(0.35 * y + 0.65 * RNG.random(2000), 0, 1).astype("float32")
    w = RNG.uniform(0.2, 2, 2000)
    roc = feed(metrics.AUC(), y, scores, batches=4)
    assert roc == pytest.approx(skm.roc_auc_score(y, scores), abs=2e-3)
    weighted = feed(metrics.AUC(), y, scores, sample_weight=w)
    assert weighted == pytest.approx(skm.roc_auc_score(y, scores, sample_weight=w), abs=2e-3)
    pr = feed(metrics.AUC(curve="PR"), y, scores)
    assert pr == pytest.approx(skm.average_precision_score(y, scores), abs=1e-2)
    logits = np.log(scores + 1e-6) - np.log1p(-scores + 1e-6)
    assert feed(metrics.AUC(from_logits=True), y, logits) == pytest.approx(roc, abs=2e-3)
    explicit = feed(metrics.AUC(thresholds=list(np.linspace(0, 1, 400)[1:-1] ** 2)), y, scores)
    assert explicit == pytest.approx(skm.roc_auc_score(y, scores), abs=2e-3)


def test_auc_hand_computed_trapezoid():
    # Keras docs example: thresholds [0 - eps, 0.5, 1 + eps] -> 0.75
    m = metrics.AUC(num_thresholds=3)
    m.update_state([0, 0, 1, 1], [0, 0.5, 0.3, 0.9])
    assert m.result() == pytest.approx(0.75)
    m.reset_state()
    m.update_state([0, 0, 1, 1], [0, 0.5, 0.3, 0.9], sample_weight=[1, 0, 0, 1])
    assert m.result() == pytest.approx(1.0)


def test_multi_label_auc_averages_labels():
    y = RNG.integers(0, 2, (500, 3))
    scores = np.clip(0.3 * y + 0.7 * RNG.random((500, 3)), 0, 1)
    expected = np.mean([skm.roc_auc_score(y[:, j], scores[:, j]) for j in range(3)])
    assert feed(metrics.AUC(multi_label=True), y, scores) == pytest.approx(expected, abs=3e-3)

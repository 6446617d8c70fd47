"""Losses: closed-form values (NumPy references of Keras' formulas and Keras' documented
examples), sample weights and reductions, gradients against finite differences, float32
discipline, stability, label formats, lookup and config round trips."""

import numpy as np
import pytest

import lamina
from harness.ops import numerical_gradient
from lamina import ops
from lamina.highlevel.losses import losses

EPS = 1e-7
RNG = np.random.default_rng(11)


# ------------------------------------------------------------------ NumPy references
def clip_p(p):
    return np.clip(p, EPS, 1 - EPS)


def ref_bce(t, p, from_logits=False, label_smoothing=0.0):
    t = t * (1 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        elementwise = np.maximum(p, 0) - p * t + np.log1p(np.exp(-np.abs(p)))
    else:
        p = clip_p(p)
        elementwise = -(t * np.log(p) + (1 - t) * np.log(1 - p))
    return elementwise.mean(axis=-1)


def ref_cce(t, p, from_logits=False, label_smoothing=0.0):
    t = t * (1 - label_smoothing) + label_smoothing / t.shape[-1]
    if from_logits:
        shifted = p - p.max(axis=-1, keepdims=True)
        log_p = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    else:
        log_p = np.log(clip_p(p / p.sum(axis=-1, keepdims=True)))
    return -(t * log_p).sum(axis=-1)


def ref_scce(labels, p, from_logits=False):
    onehot = np.eye(p.shape[-1])[np.asarray(labels).reshape(-1).astype(int)]
    return ref_cce(onehot.reshape(p.shape), p, from_logits)


def ref_hinge_labels(t):
    return 2 * t - 1 if np.all((t == 0) | (t == 1)) else t


REFERENCES = {
    "mse": lambda t, p: ((t - p) ** 2).mean(-1),
    "mae": lambda t, p: np.abs(t - p).mean(-1),
    "mape": lambda t, p: 100 * np.abs((t - p) / np.maximum(np.abs(t), EPS)).mean(-1),
    "msle": lambda t, p: ((np.log(np.maximum(p, EPS) + 1)
                           - np.log(np.maximum(t, EPS) + 1)) ** 2).mean(-1),
    "huber": lambda t, p: np.where(np.abs(p - t) <= 1.0, 0.5 * (p - t) ** 2,
                                   np.abs(p - t) - 0.5).mean(-1),
    "log_cosh": lambda t, p: np.log(np.cosh(p - t)).mean(-1),
    "hinge": lambda t, p: np.maximum(1 - ref_hinge_labels(t) * p, 0).mean(-1),
    "squared_hinge": lambda t, p: (np.maximum(1 - ref_hinge_labels(t) * p, 0) ** 2).mean(-1),
    "kld": lambda t, p: (np.clip(t, EPS, 1) * np.log(np.clip(t, EPS, 1)
                                                    / np.clip(p, EPS, 1))).sum(-1),
    "poisson": lambda t, p: (p - t * np.log(p + EPS)).mean(-1),
    "binary_crossentropy": ref_bce,
    "categorical_crossentropy": ref_cce,
}


def regression_data(name, shape=(6, 4)):
    """Targets and predictions of the kind each loss expects, away from kinks and clips."""
    if name in ("hinge", "squared_hinge"):
        return RNG.integers(0, 2, shape).astype(float), RNG.uniform(-2, 2, shape)
    if name in ("kld", "categorical_crossentropy"):
        t = RNG.dirichlet(np.ones(shape[-1]), shape[0])
        return t, RNG.dirichlet(np.ones(shape[-1]), shape[0])
    if name == "binary_crossentropy":
        return RNG.integers(0, 2, shape).astype(float), RNG.uniform(0.05, 0.95, shape)
    if name in ("msle", "poisson"):
        return RNG.uniform(0.1, 3, shape), RNG.uniform(0.1, 3, shape)
    t = RNG.uniform(-2, 2, shape)
    p = t + RNG.choice([-1, 1], shape) * RNG.uniform(0.1, 2.5, shape)   # away from kinks
    return t, p


def value(tensor):
    return np.asarray(tensor.numpy(), dtype=np.float64)


# ------------------------------------------------------------------ closed forms
@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_loss_matches_closed_form_with_weights_and_reductions(name):
    t, p = regression_data(name)
    per_sample = REFERENCES[name](t, p)
    weights = RNG.uniform(0, 2, t.shape[0])
    loss = losses.get(name)
    np.testing.assert_allclose(value(loss(t, p)), per_sample.mean(), rtol=1e-6)
    np.testing.assert_allclose(value(loss(t, p, sample_weight=weights)),
                               (per_sample * weights).sum() / len(per_sample), rtol=1e-6)
    for reduction, expected in (("sum", (per_sample * weights).sum()),
                                ("none", per_sample * weights), (None, per_sample * weights),
                                ("mean_with_sample_weight",
                                 (per_sample * weights).sum() / weights.sum())):
        config = dict(loss.get_config(), reduction=reduction)
        other = type(loss).from_config(config)
        np.testing.assert_allclose(value(other(t, p, sample_weight=weights)), expected,
                                   rtol=1e-6)
    np.testing.assert_allclose(value(loss.call(t, p)), per_sample, rtol=1e-6)


@pytest.mark.parametrize("loss, y_true, y_pred, expected", [
    (losses.MeanSquaredError(), [[0., 1.], [0., 0.]], [[1., 1.], [1., 0.]], 0.5),
    (losses.MeanAbsolutePercentageError(), [[2., 1.], [2., 3.]], [[1., 1.], [1., 0.]], 50.0),
    (losses.Huber(), [[0, 1], [0, 0]], [[0.6, 0.4], [0.4, 0.6]], 0.155),
    (losses.LogCosh(), [[0., 1.], [0., 0.]], [[1., 1.], [0., 0.]], 0.108),
    (losses.KLDivergence(), [[0, 1], [0, 0]], [[0.6, 0.4], [0.4, 0.6]], 0.458),
    (losses.Hinge(), [[0., 1.], [0., 0.]], [[0.6, 0.4], [0.4, 0.6]], 1.3),
    (losses.BinaryCrossentropy(from_logits=True), [0, 1, 0, 0], [-18.6, 0.51, 2.94, -12.8],
     0.865),
    (losses.BinaryCrossentropy(), [[0., 1.], [0., 0.]], [[0.6, 0.4], [0.4, 0.6]], 0.815),
    (losses.CategoricalCrossentropy(), [[0, 1, 0], [0, 0, 1]],
     [[0.05, 0.95, 0], [0.1, 0.8, 0.1]], 1.177),
    (losses.SparseCategoricalCrossentropy(), [1, 2], [[0.05, 0.95, 0], [0.1, 0.8, 0.1]],
     1.177),
])
def test_keras_documented_values(loss, y_true, y_pred, expected):
    np.testing.assert_allclose(float(loss(np.array(y_true), np.array(y_pred))), expected,
                               atol=1e-3)


@pytest.mark.parametrize("from_logits", [False, True])
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_crossentropies_from_logits_and_label_smoothing(from_logits, smoothing):
    logits = RNG.normal(size=(5, 4)) * 2
    probs = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    scores = logits if from_logits else probs
    onehot = np.eye(4)[RNG.integers(0, 4, 5)]
    cce = losses.CategoricalCrossentropy(from_logits=from_logits, label_smoothing=smoothing)
    np.testing.assert_allclose(value(cce(onehot, scores)),
                               ref_cce(onehot, scores, from_logits, smoothing).mean(),
                               rtol=1e-6)
    binary = RNG.integers(0, 2, (5, 3)).astype(float)
    bscores = logits[:, :3] if from_logits else 1 / (1 + np.exp(-logits[:, :3]))
    bce = losses.BinaryCrossentropy(from_logits=from_logits, label_smoothing=smoothing)
    np.testing.assert_allclose(value(bce(binary, bscores)),
                               ref_bce(binary, bscores, from_logits, smoothing).mean(),
                               rtol=1e-6)


@pytest.mark.parametrize("from_logits", [False, True])
def test_sparse_label_formats(from_logits):
    scores = RNG.uniform(0.05, 1, (6, 4))
    labels = np.array([0, 3, 1, 2, 2, 0])
    expected = ref_scce(labels, scores, from_logits).mean()
    loss = losses.SparseCategoricalCrossentropy(from_logits=from_logits)
    for form in (labels, labels.reshape(-1, 1), labels.astype("float32"),
                 labels.reshape(-1, 1).astype(float), lamina.Tensor(labels.astype("float32"))):
        np.testing.assert_allclose(value(loss(form, scores)), expected, rtol=1e-6)
    with pytest.raises(ValueError, match="labels must lie in"):
        loss(np.array([0, 4, 1, 2, 2, 0]), scores)


def test_sparse_sequence_labels():
    scores = RNG.normal(size=(2, 3, 5))
    labels = RNG.integers(0, 5, (2, 3))
    loss = losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")
    np.testing.assert_allclose(value(loss(labels, scores)),
                               ref_scce(labels, scores, True).reshape(2, 3), rtol=1e-6)


def test_ignore_class_divides_by_valid_samples():
    scores = RNG.normal(size=(5, 3))
    labels = np.array([0, -1, 2, -1, 1])
    loss = losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=-1)
    valid = labels != -1
    per_sample = ref_scce(labels[valid], scores[valid], True)
    np.testing.assert_allclose(value(loss(labels, scores)),
                               per_sample.sum() / (valid.sum() + EPS), rtol=1e-6)
    none = losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=-1,
                                                reduction="none")(labels, scores)
    np.testing.assert_allclose(value(none)[valid], per_sample, rtol=1e-6)
    assert np.all(value(none)[~valid] == 0)


def test_sample_weight_shapes():
    t, p = regression_data("mse", (4, 3, 2))
    per_step = ((t - p) ** 2).mean(-1)
    loss = losses.MeanSquaredError()
    w = RNG.uniform(size=4)
    # per-sample weights broadcast over the time axis; (n, 1) is accepted as well
    for weights in (w, w.reshape(-1, 1)):
        np.testing.assert_allclose(value(loss(t, p, sample_weight=weights)),
                                   (per_step * w[:, None]).mean(), rtol=1e-6)
    w2 = RNG.uniform(size=(4, 3))
    np.testing.assert_allclose(value(loss(t, p, sample_weight=w2)), (per_step * w2).mean(),
                               rtol=1e-6)
    # y_true of shape (n,) against y_pred (n, 1)
    np.testing.assert_allclose(value(loss(t[:, 0, 0], p[:, 0, :1])),
                               ((t[:, 0, 0] - p[:, 0, 0]) ** 2).mean(), rtol=1e-6)


# ------------------------------------------------------------------ gradients
def check_gradient(loss, y_true, y_pred, sample_weight=None):
    y_pred = np.asarray(y_pred, dtype=np.float64)
    tensor = lamina.Tensor(y_pred, requires_grad=True)
    result = loss(y_true, tensor, sample_weight=sample_weight)
    (gradient,) = lamina.grad(result, [tensor])
    assert gradient.dtype == np.float64
    probe = y_pred.copy()
    expected = numerical_gradient(
        lambda: loss(y_true, probe, sample_weight=sample_weight).numpy(), probe)
    np.testing.assert_allclose(gradient.numpy(), expected, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_gradient_matches_finite_differences(name):
    t, p = regression_data(name, (4, 3))
    check_gradient(losses.get(name), t, p, sample_weight=RNG.uniform(0.5, 2, 4))


@pytest.mark.parametrize("from_logits", [False, True])
def test_crossentropy_gradients(from_logits):
    logits = RNG.normal(size=(4, 3))
    scores = logits if from_logits else RNG.uniform(0.05, 1.0, (4, 3))
    onehot = np.eye(3)[[0, 2, 1, 1]]
    check_gradient(losses.CategoricalCrossentropy(from_logits=from_logits,
                                                  label_smoothing=0.1), onehot, scores)
    check_gradient(losses.SparseCategoricalCrossentropy(from_logits=from_logits),
                   np.array([0, 2, 1, 1]), scores, sample_weight=np.array([1, 2, 0.5, 1]))
    check_gradient(losses.SparseCategoricalCrossentropy(from_logits=from_logits,
                                                        ignore_class=2),
                   np.array([0, 2, 1, 1]), scores)
    binary = RNG.integers(0, 2, (4, 3)).astype(float)
    bscores = logits if from_logits else RNG.uniform(0.05, 0.95, (4, 3))
    check_gradient(losses.BinaryCrossentropy(from_logits=from_logits, label_smoothing=0.1),
                   binary, bscores)


def test_bce_from_logits_gradient_at_zero_is_sigmoid_minus_target():
    logits = lamina.Tensor(np.zeros((2, 1)), requires_grad=True)
    result = losses.BinaryCrossentropy(from_logits=True, reduction="sum")(
        np.array([[1.0], [0.0]]), logits)
    (gradient,) = lamina.grad(result, [logits])
    np.testing.assert_allclose(gradient.numpy(), [[-0.5], [0.5]])


# ------------------------------------------------------------------ dtypes and stability
@pytest.mark.parametrize("loss", [
    losses.MeanSquaredError(), losses.MeanAbsoluteError(), losses.MeanAbsolutePercentageError(),
    losses.Huber(), losses.LogCosh(), losses.Hinge(), losses.KLDivergence(),
    losses.BinaryCrossentropy(), losses.BinaryCrossentropy(from_logits=True),
    losses.CategoricalCrossentropy(), losses.CategoricalCrossentropy(from_logits=True),
    losses.CategoricalCrossentropy(label_smoothing=0.1),
], ids=lambda loss: f"{loss.name}")
def test_float32_in_float32_out(loss):
    y_true = np.eye(3)[[0, 1, 2, 1]]              # float64 targets must not promote
    y_pred = lamina.Tensor(RNG.uniform(0.1, 0.9, (4, 3)).astype("float32"),
                           requires_grad=True)
    result = loss(y_true, y_pred, sample_weight=np.array([1.0, 2.0, 1.0, 0.5]))
    assert result.dtype == np.float32 and result.shape == ()
    (gradient,) = lamina.grad(result, [y_pred])
    assert gradient.dtype == np.float32


@pytest.mark.parametrize("from_logits", [False, True])
def test_sparse_float32(from_logits):
    y_pred = lamina.Tensor(RNG.uniform(0.1, 0.9, (4, 3)).astype("float32"), requires_grad=True)
    for labels in (np.array([0, 1, 2, 1]), np.array([[0.], [1.], [2.], [1.]])):
        result = losses.SparseCategoricalCrossentropy(from_logits=from_logits)(labels, y_pred)
        (gradient,) = lamina.grad(result, [y_pred])
        assert result.dtype == np.float32 and gradient.dtype == np.float32


def test_from_logits_is_stable_for_huge_logits():
    logits = np.array([[1e4, -1e4, 0.0], [-3e4, 2e4, 5e3]], dtype="float32")
    for loss, target in ((losses.CategoricalCrossentropy(from_logits=True), np.eye(3)[[0, 2]]),
                         (losses.SparseCategoricalCrossentropy(from_logits=True),
                          np.array([1, 0])),
                         (losses.BinaryCrossentropy(from_logits=True),
                          np.array([[1., 0., 1.], [1., 1., 0.]]))):
        tensor = lamina.Tensor(logits, requires_grad=True)
        result = loss(target, tensor)
        (gradient,) = lamina.grad(result, [tensor])
        assert np.isfinite(result.numpy()) and np.all(np.isfinite(gradient.numpy()))
    bce = losses.BinaryCrossentropy(from_logits=True, reduction="none")
    np.testing.assert_allclose(value(bce(np.array([[1., 0.]]), np.array([[-1e4, -1e4]]))),
                               [5e3], rtol=1e-6)


def test_categorical_from_logits_with_masked_class_matches_sparse():
    # a -inf logit masks a class; with a zero target it is finite, as in the sparse loss
    logits = np.array([[2.0, -np.inf, 0.5], [-np.inf, 1.0, 3.0]], dtype="float32")
    labels = np.array([0, 2])
    dense_loss = losses.CategoricalCrossentropy(from_logits=True)
    sparse_loss = losses.SparseCategoricalCrossentropy(from_logits=True)
    results = []
    for loss, target in ((dense_loss, np.eye(3, dtype="float32")[labels]),
                         (sparse_loss, labels)):
        tensor = lamina.Tensor(logits, requires_grad=True)
        result = loss(target, tensor)
        results.append((value(result), lamina.grad(result, [tensor])[0].numpy()))
    (dense, dense_grad), (sparse, sparse_grad) = results
    assert np.isfinite(dense) and np.isfinite(dense_grad).all()
    np.testing.assert_allclose(dense, sparse, rtol=1e-6)
    np.testing.assert_allclose(dense_grad, sparse_grad, rtol=1e-6, atol=1e-7)
    # label smoothing puts weight on the masked class: its loss is infinite, not NaN
    smoothed = losses.CategoricalCrossentropy(from_logits=True, label_smoothing=0.1)
    assert value(smoothed(np.eye(3)[labels], logits)) == np.inf


@pytest.mark.parametrize("bad, shown", [(np.nan, "nan"), (np.inf, "inf"), (1.5, "1.5")])
@pytest.mark.parametrize("from_logits", [False, True])
def test_sparse_labels_that_are_not_class_indices_are_reported(bad, shown, from_logits):
    labels = np.array([0.0, 2.0, bad, 1.0])
    loss = losses.SparseCategoricalCrossentropy(from_logits=from_logits)
    with pytest.raises(ValueError, match=rf"labels must be whole class indices, got {shown}$"):
        loss(labels, RNG.uniform(0.1, 1, (4, 3)))


def test_out_of_range_sparse_label_is_reported():
    loss = losses.SparseCategoricalCrossentropy(from_logits=True)
    with pytest.raises(ValueError, match=r"\[0, 3\) for 3 classes, got 5 \(labels range from "
                                         r"0 to 5\)"):
        loss(np.array([0, 5, 1]), np.zeros((3, 3)))
    with pytest.raises(ValueError, match=r"got -2 \(labels range from -2 to 1\)"):
        loss(np.array([0, -2, 1]), np.zeros((3, 3)))


def test_mismatched_sample_weight_is_an_error_not_a_broadcast():
    loss = losses.MeanSquaredError()
    t, p = np.ones((3, 4)), np.zeros((3, 4))
    with pytest.raises(ValueError, match=r"sample_weight of shape \(3, 3\) does not match the "
                                         r"losses of shape \(3,\)"):
        loss(t, p, sample_weight=np.ones((3, 3)))   # would broadcast to (3, 3) silently


def test_probabilities_at_zero_and_one_are_clipped():
    result = losses.BinaryCrossentropy()(np.array([1.0, 0.0]), np.array([0.0, 1.0]))
    np.testing.assert_allclose(float(result), -np.log(EPS), rtol=1e-5)
    result = losses.CategoricalCrossentropy()(np.eye(2), np.array([[0.0, 1.0], [1.0, 0.0]]))
    np.testing.assert_allclose(float(result), -np.log(EPS), rtol=1e-5)


# ------------------------------------------------------------------ lookup and config
def test_get_resolves_names_dicts_instances_and_callables():
    assert isinstance(losses.get("mse"), losses.MeanSquaredError)
    assert isinstance(losses.get("MeanAbsoluteError"), losses.MeanAbsoluteError)
    assert isinstance(losses.get("sparse_categorical_crossentropy"),
                      losses.SparseCategoricalCrossentropy)
    instance = losses.Huber(delta=2.0)
    assert losses.get(instance) is instance
    assert losses.get(None) is None
    assert isinstance(losses.get(losses.binary_crossentropy), losses.BinaryCrossentropy)
    restored = losses.get({"class_name": "CategoricalCrossentropy",
                           "config": {"from_logits": True, "label_smoothing": 0.1,
                                      "reduction": "auto", "name": "cce"}})
    assert restored.from_logits and restored.label_smoothing == 0.1
    assert restored.reduction == "sum_over_batch_size" and restored.name == "cce"
    assert isinstance(losses.get({"class_name": "function", "config": "mae"}),
                      losses.MeanAbsoluteError)

    def my_loss(y_true, y_pred):
        return lamina.ops.mean(lamina.ops.square(y_pred - y_true), axis=-1)

    wrapped = losses.get(my_loss)
    assert wrapped.name == "my_loss"
    np.testing.assert_allclose(float(wrapped(np.ones((2, 2)), np.zeros((2, 2)))), 1.0)


def test_unknown_names_list_known_ones():
    with pytest.raises(ValueError, match="mean_squared_error"):
        losses.get("mean_squared_eror")
    with pytest.raises(ValueError, match="reduction"):
        losses.MeanSquaredError(reduction="average")


@pytest.mark.parametrize("loss", [
    losses.MeanSquaredError(reduction="sum", name="m"), losses.Huber(delta=0.5),
    losses.BinaryCrossentropy(from_logits=True, label_smoothing=0.2),
    losses.CategoricalCrossentropy(label_smoothing=0.1, reduction="none"),
    losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=0),
    losses.KLDivergence(), losses.Hinge(), losses.LogCosh(), losses.MeanAbsoluteError(),
    losses.MeanAbsolutePercentageError(),
], ids=lambda loss: loss.name)
def test_config_round_trip(loss):
    config = loss.get_config()
    clone = type(loss).from_config(config)
    assert clone.get_config() == config
    again = losses.deserialize(losses.serialize(loss))
    assert type(again) is type(loss) and again.get_config() == config


def test_default_names_follow_keras():
    assert losses.MeanSquaredError().name == "mean_squared_error"
    assert losses.Huber().name == "huber_loss"
    assert losses.KLDivergence().name == "kl_divergence"
    assert losses.SparseCategoricalCrossentropy().get_config() == {
        "name": "sparse_categorical_crossentropy", "reduction": "sum_over_batch_size",
        "from_logits": False, "ignore_class": None, "axis": -1}   # Keras 3.15 omits axis


# ------------------------------------------------------------ every Keras 3.15 loss name
KERAS_LOSS_CLASSES = [
    "BinaryCrossentropy", "BinaryFocalCrossentropy", "CategoricalCrossentropy",
    "CategoricalFocalCrossentropy", "CategoricalGeneralizedCrossEntropy", "CategoricalHinge",
    "Circle", "CosineSimilarity", "Dice", "Hinge", "Huber", "KLDivergence", "LogCosh",
    "MeanAbsoluteError", "MeanAbsolutePercentageError", "MeanSquaredError",
    "MeanSquaredLogarithmicError", "Poisson", "SparseCategoricalCrossentropy", "SquaredHinge",
    "Tversky",
]
# string name -> class, as keras.losses.get resolves them
KERAS_STRING_NAMES = {
    "binary_focal_crossentropy": "BinaryFocalCrossentropy",
    "categorical_focal_crossentropy": "CategoricalFocalCrossentropy",
    "categorical_generalized_cross_entropy": "CategoricalGeneralizedCrossEntropy",
    "categorical_hinge": "CategoricalHinge", "circle": "Circle",
    "cosine_similarity": "CosineSimilarity", "dice": "Dice", "tversky": "Tversky",
    "hinge": "Hinge", "squared_hinge": "SquaredHinge", "log_cosh": "LogCosh",
    "poisson": "Poisson", "kl_divergence": "KLDivergence", "kld": "KLDivergence",
    "kullback_leibler_divergence": "KLDivergence", "huber": "Huber",
    "mse": "MeanSquaredError", "mae": "MeanAbsoluteError",
    "mape": "MeanAbsolutePercentageError", "msle": "MeanSquaredLogarithmicError",
}


@pytest.mark.parametrize("name", sorted(KERAS_STRING_NAMES))
def test_every_keras_string_name_resolves(name):
    loss = losses.get(name)
    assert type(loss) is getattr(losses, KERAS_STRING_NAMES[name])
    function = getattr(losses, loss.fn.__name__)
    assert losses.get(function).get_config() == loss.get_config()


@pytest.mark.parametrize("name", KERAS_LOSS_CLASSES)
def test_keras_loss_classes_take_reduction_name_dtype(name):
    loss = getattr(losses, name)(reduction="sum", name="mine", dtype="float32")
    assert (loss.reduction, loss.name, loss.dtype) == ("sum", "mine", "float32")
    with pytest.raises(ValueError, match="reduction"):
        getattr(losses, name)(reduction="median")


def test_generalized_cross_entropy_checks_q():
    with pytest.raises(ValueError, match="q must be in the interval"):
        losses.CategoricalGeneralizedCrossEntropy(q=1.5)


def test_custom_loss_written_with_ops_gets_gradients_and_trains():
    def my_loss(y_true, y_pred):
        return ops.mean(ops.square(ops.subtract(y_pred, y_true)) * 2.0, axis=-1)

    model = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(1)])
    model.compile(optimizer="sgd", loss=my_loss)
    x = np.random.default_rng(0).normal(size=(32, 3)).astype("float32")
    y = x @ np.array([[1.0], [-2.0], [0.5]], dtype="float32")
    history = model.fit(x, y, epochs=5, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    model.compile(optimizer="adam", loss="binary_focal_crossentropy")
    model.fit(x, (y > 0).astype("float32"), epochs=1, verbose=0)


def test_the_fuzz_factor_is_lamina_config_epsilon():
    # Keras 3.15.1 after keras.config.set_epsilon(1e-3):
    #   BinaryCrossentropy()([[1, 0, 1]], [[0, .5, 1]]) -> 2.5339677333831787
    #   CategoricalCrossentropy()([[0, 1]], [[1, 0]]) -> 6.907755374908447
    #   MeanAbsolutePercentageError()([[0, 2]], [[1, 1]]) -> 50024.99609375
    # and BinaryCrossentropy()([[1, 0, 1]], [[0, .5, 1]]) -> 5.603747844696045 with 1e-7
    y_true, y_pred = np.array([[1.0, 0.0, 1.0]], "float32"), np.array([[0.0, 0.5, 1.0]], "float32")
    lamina.config.set_epsilon(1e-3)
    try:
        assert float(lamina.losses.BinaryCrossentropy()(y_true, y_pred)) == pytest.approx(
            2.5339677333831787, rel=1e-6)
        assert float(lamina.losses.CategoricalCrossentropy()(
            np.array([[0.0, 1.0]], "float32"), np.array([[1.0, 0.0]], "float32"))) == \
            pytest.approx(6.907755374908447, rel=1e-6)
        assert float(lamina.losses.MeanAbsolutePercentageError()(
            np.array([[0.0, 2.0]], "float32"), np.array([[1.0, 1.0]], "float32"))) == \
            pytest.approx(50024.99609375, rel=1e-6)
    finally:
        lamina.config.set_epsilon(1e-7)
    assert float(lamina.losses.BinaryCrossentropy()(y_true, y_pred)) == pytest.approx(
        5.603747844696045, rel=1e-6)

"""Fused loss ops in ``lamina.ops`` (``backends/ops/losses.py``): mean squared error and the
sparse and dense softmax cross-entropies, in the op harness on every engine; bad labels."""

import numpy as np
import pytest
from scipy.special import log_softmax

import lamina
from lamina import ops

RNG = np.random.default_rng(5)


def rand(*shape, low=-3.0, high=3.0):
    """Float64 test data, uniform in [low, high)."""
    return np.asarray(RNG.uniform(low, high, size=shape))


@pytest.mark.parametrize("shapes", [((5, 4), (5, 4)), ((6, 1), (6, 1)), ((2, 3, 4), (3, 4))],
                         ids=str)
def test_mean_squared_error(check_op, shapes):
    check_op(ops.mean_squared_error, [rand(*shapes[0]), rand(*shapes[1])],
             reference=lambda t, p: ((t - p) ** 2).mean(axis=-1))


@pytest.mark.parametrize("logits_shape", [(5, 4), (2, 3, 4)], ids=str)
def test_sparse_softmax_cross_entropy(check_op, logits_shape):
    labels = RNG.integers(0, logits_shape[-1], size=logits_shape[:-1])

    def reference(labels_, logits):
        picked = np.take_along_axis(log_softmax(logits, axis=-1), labels_[..., None], axis=-1)
        return -picked[..., 0]

    check_op(ops.sparse_softmax_cross_entropy, [labels, rand(*logits_shape)],
             reference=reference)


def test_sparse_softmax_cross_entropy_rejects_bad_labels(engine):
    with pytest.raises(ValueError, match=r"\[0, 3\)"):
        ops.sparse_softmax_cross_entropy(np.array([0, 3]), np.zeros((2, 3)))
    with pytest.raises(ValueError, match="do not match"):
        ops.sparse_softmax_cross_entropy(np.array([0, 1, 2]), np.zeros((2, 3)))


@pytest.mark.parametrize("shape", [(5, 4), (2, 3, 4)], ids=str)
def test_softmax_cross_entropy(check_op, shape):
    targets = np.exp(log_softmax(rand(*shape), axis=-1))
    check_op(ops.softmax_cross_entropy, [targets, rand(*shape)],
             reference=lambda t, z: -(t * log_softmax(z, axis=-1)).sum(axis=-1))


def test_cross_entropies_agree_on_one_hot_targets(engine):
    logits = rand(6, 4)
    labels = np.array([0, 3, 1, 1, 2, 0])
    sparse = ops.sparse_softmax_cross_entropy(labels, logits).numpy()
    dense = ops.softmax_cross_entropy(np.eye(4)[labels], logits).numpy()
    np.testing.assert_allclose(sparse, dense, rtol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cross_entropies_with_masked_logits_are_finite_and_agree(engine, dtype):
    # A -inf logit masks its class: the dense op must not compute 0 * -inf = NaN.
    logits = np.array([[1.0, 2.0, -np.inf], [0.5, -np.inf, 0.0]], dtype=dtype)
    labels = np.array([0, 2])
    outputs = {}
    for name, op, targets in [("sparse", ops.sparse_softmax_cross_entropy, labels),
                              ("dense", ops.softmax_cross_entropy,
                               np.eye(3, dtype=dtype)[labels])]:
        z = lamina.Variable(logits)
        loss = ops.sum(op(targets, z))
        outputs[name] = (loss.numpy(), lamina.grad(loss, [z])[0].numpy())
    for loss, gradient in outputs.values():
        assert np.isfinite(loss) and np.isfinite(gradient).all()
    nearly_masked = np.where(np.isinf(logits), -1e30, logits)
    expected = -np.take_along_axis(log_softmax(nearly_masked, axis=-1), labels[:, None],
                                   axis=-1).sum()
    np.testing.assert_allclose(outputs["dense"][0], expected, rtol=1e-6)
    np.testing.assert_allclose(outputs["dense"][0], outputs["sparse"][0], rtol=1e-6)
    np.testing.assert_allclose(outputs["dense"][1], outputs["sparse"][1], rtol=1e-6, atol=1e-7)
    assert (outputs["dense"][1][np.isinf(logits)] == 0).all()


# ------------------------------------------------------------------ keras.ops names
# Produced with Keras 3.15.1 (torch backend):
#   keras.ops.binary_crossentropy([0., 1, 1], [0.2, 0.7, 0.99])
#   keras.ops.categorical_crossentropy([[0., 1, 0], [1, 0, 0]], [[.2, .7, .1], [.5, .3, .2]])
#   keras.ops.categorical_crossentropy([[0., 1], [1, 0], [0, 0]],
#                                      [[.2, .7], [1.5, .3], [-.2, .1]], from_logits=True, axis=0)
#   keras.ops.sparse_categorical_crossentropy([1, 0], [[.2, .7, .1], [.5, .3, .2]])
#   keras.ops.sparse_categorical_crossentropy([[1], [2]], [[.2, .7, .1], [.5, .3, .2]],
#                                             from_logits=True)
KERAS_BCE = [0.223144, 0.356675, 0.01005]
KERAS_CCE = [0.356675, 0.693147]
KERAS_CCE_LOGITS_AXIS0 = [0.375154, 0.797116]
KERAS_SCCE_LOGITS = [0.76795, 1.239831]
PROBABILITIES = np.array([[0.2, 0.7, 0.1], [0.5, 0.3, 0.2]])


def test_keras_crossentropies(engine):
    out = ops.binary_crossentropy(np.array([0.0, 1, 1]), np.array([0.2, 0.7, 0.99]))
    np.testing.assert_allclose(out.numpy(), KERAS_BCE, atol=1e-6)
    target = np.array([[0.0, 1, 0], [1, 0, 0]])
    np.testing.assert_allclose(ops.categorical_crossentropy(target, PROBABILITIES).numpy(),
                               KERAS_CCE, atol=1e-6)
    logits = np.array([[0.2, 0.7], [1.5, 0.3], [-0.2, 0.1]])
    out = ops.categorical_crossentropy(np.array([[0.0, 1], [1, 0], [0, 0]]), logits,
                                       from_logits=True, axis=0)
    np.testing.assert_allclose(out.numpy(), KERAS_CCE_LOGITS_AXIS0, atol=1e-6)
    np.testing.assert_allclose(ops.sparse_categorical_crossentropy(
        np.array([1, 0]), PROBABILITIES).numpy(), KERAS_CCE, atol=1e-6)
    np.testing.assert_allclose(ops.nn.sparse_categorical_crossentropy(
        np.array([[1], [2]]), PROBABILITIES, from_logits=True).numpy(), KERAS_SCCE_LOGITS,
        atol=1e-6)
    with pytest.raises(ValueError, match="same shape"):
        ops.categorical_crossentropy(target, PROBABILITIES[:, :2])


def test_keras_crossentropy_gradients(check_op):
    targets = RNG.uniform(0, 1, (4, 3)).astype(np.float32)     # constant labels
    check_op(lambda p: ops.binary_crossentropy(targets, p), [rand(4, 3, low=0.1, high=0.9)])
    check_op(lambda z: ops.binary_crossentropy(targets, z, from_logits=True), [rand(4, 3)])
    check_op(lambda z: ops.categorical_crossentropy(targets.T, z, from_logits=True, axis=0),
             [rand(3, 4)], reference=lambda z: -(targets.T * log_softmax(z, axis=0)).sum(0))
    labels = np.array([0, 2, 1, 2])
    check_op(lambda z: ops.sparse_categorical_crossentropy(labels, z, from_logits=True),
             [rand(4, 3)], reference=lambda z: -log_softmax(z, -1)[np.arange(4), labels])

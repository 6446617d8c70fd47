"""The extra activations of ``keras.ops.nn`` (``backends/ops/activations.py``): forward
against Keras 3.15's numbers, gradients against finite differences on every engine."""

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.backends.ops import activations as activations_ops

X = np.array([-3.5, -2.0, -0.9, -0.25, 0.0, 0.4, 1.2, 3.3])
# Produced with Keras 3.15.1 (torch backend):
#   x = np.array([-3.5, -2.0, -0.9, -0.25, 0.0, 0.4, 1.2, 3.3], "float32")
#   np.round(keras.ops.<name>(x), 6).tolist()   (threshold(x, 0.3, -1.0), celu(x, alpha=2.0))
KERAS = {
    "softsign": [-0.777778, -0.666667, -0.473684, -0.2, 0.0, 0.285714, 0.545455, 0.767442],
    "hard_sigmoid": [0.0, 0.166667, 0.35, 0.458333, 0.5, 0.566667, 0.7, 1.0],
    "sparse_sigmoid": [0.0, 0.0, 0.05, 0.375, 0.5, 0.7, 1.0, 1.0],
    "hard_tanh": [-1.0, -1.0, -0.9, -0.25, 0.0, 0.4, 1.0, 1.0],
    "tanh_shrink": [-2.501822, -1.035972, -0.183702, -0.005081, 0.0, 0.020051, 0.366345,
                    2.302717],
    "log_sigmoid": [-3.52975, -2.126928, -1.241154, -0.825939, -0.693147, -0.513015,
                    -0.263282, -0.036219],
    "hard_silu": [-0.0, -0.333333, -0.315, -0.114583, 0.0, 0.226667, 0.84, 3.3],
    "hard_swish": [-0.0, -0.333333, -0.315, -0.114583, 0.0, 0.226667, 0.84, 3.3],
    "sparse_plus": [0.0, 0.0, 0.0025, 0.140625, 0.25, 0.49, 1.2, 3.3],
    "celu": [-0.969803, -0.864665, -0.59343, -0.221199, 0.0, 0.4, 1.2, 3.3],
    "squareplus": [0.265564, 0.414214, 0.646586, 0.882782, 1.0, 1.219804, 1.766190, 3.579378],
    "hard_shrink": [-3.5, -2.0, -0.9, 0.0, 0.0, 0.0, 1.2, 3.3],
    "soft_shrink": [-3.0, -1.5, -0.4, -0.0, 0.0, 0.0, 0.7, 2.8],
}
CELU_ALPHA_2 = [-1.652452, -1.264241, -0.724744, -0.235006, 0.0, 0.4, 1.2, 3.3]
THRESHOLD = [-1.0, -1.0, -1.0, -1.0, -1.0, 0.4, 1.2, 3.3]
GLU = [[-1.011677, -0.875647], [0.0, 0.385772]]      # keras.ops.glu(x.reshape(2, 4))

# smooth points only (no kinks at -3, -1, 0, 1, 3 or the shrink thresholds)
SMOOTH = np.array([[-3.7, -2.2, -1.4, -0.7], [-0.3, 0.2, 0.8, 1.6], [2.1, 2.7, 3.4, 4.2]])


@pytest.mark.parametrize("name", sorted(KERAS))
def test_forward_matches_keras(engine, name):
    out = getattr(ops, name)(X.astype(np.float32))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out.numpy(), KERAS[name], atol=2e-6)
    assert getattr(ops.nn, name) is getattr(ops, name)


@pytest.mark.parametrize("name", sorted(KERAS))
def test_gradients(check_op, name):
    check_op(getattr(ops, name), [SMOOTH], reference=lambda v: getattr(ops, name)(v).numpy())


def test_parametrized_forms(check_op, engine):
    np.testing.assert_allclose(ops.celu(X, alpha=2.0).numpy(), CELU_ALPHA_2, atol=2e-6)
    np.testing.assert_allclose(ops.threshold(X, 0.3, -1.0).numpy(), THRESHOLD)
    check_op(lambda v: ops.celu(v, alpha=2.0), [SMOOTH])
    check_op(lambda v: ops.squareplus(v, b=2.5), [SMOOTH])
    check_op(lambda v: ops.hard_shrink(v, threshold=1.0), [SMOOTH])
    check_op(lambda v: ops.soft_shrink(v, threshold=1.0), [SMOOTH])
    check_op(lambda v: ops.threshold(v, 0.5, 7.0), [SMOOTH])


def test_glu(check_op):
    np.testing.assert_allclose(ops.glu(X.reshape(2, 4)).numpy(), GLU, atol=2e-6)
    check_op(lambda v: ops.glu(v, axis=0), [SMOOTH[:2]])
    with pytest.raises(ValueError, match="even"):
        ops.glu(SMOOTH[:, :3])


def test_swish_is_silu(check_op):
    check_op(ops.swish, [SMOOTH], reference=lambda v: v / (1 + np.exp(-v)))


def _sparsemax_reference(z):
    """The paper's algorithm, one row at a time."""
    out = np.zeros_like(z)
    for i, row in enumerate(z):
        ordered = np.sort(row)[::-1]
        cumulative = np.cumsum(ordered)
        k = np.arange(1, row.size + 1)
        support = k[1 + k * ordered > cumulative].max()
        tau = (cumulative[support - 1] - 1) / support
        out[i] = np.maximum(row - tau, 0)
    return out


def test_sparsemax(check_op):
    z = np.array([[0.5, 1.2, -0.3, 0.9], [2.0, 0.1, 0.0, -1.0], [0.3, 0.25, 0.4, 0.1]])
    (out,) = check_op(ops.sparsemax, [z], reference=_sparsemax_reference)
    np.testing.assert_allclose(out.sum(axis=-1), 1.0)          # a distribution
    np.testing.assert_allclose(out[0], [0.0, 0.65, 0.0, 0.35])
    assert (out == 0).any()                                    # with exact zeros
    check_op(lambda v: ops.sparsemax(v, axis=0), [z.T],
             reference=lambda v: _sparsemax_reference(v.T).T)


def test_float32_stays_float32(engine):
    for name in KERAS:
        x = lamina.Tensor(SMOOTH.astype(np.float32), requires_grad=True)
        (g,) = lamina.grad(ops.sum(getattr(ops, name)(x)), [x])
        assert g.dtype == np.float32, name


# Keras' ``activations.relu`` (threshold, cap, negative slope) and ``mish``, behind
# ``lamina.activations`` (not ``keras.ops`` names).
_RNG = np.random.default_rng(11)
_KINKS = (-1.0, 0.5, 3.0)


def _off_kinks(*shape):
    """Float64 data in (-4, 4) at least 0.05 away from the kinks of these ops."""
    values = _RNG.uniform(-4.0, 4.0, size=shape)
    for kink in _KINKS:
        values[np.abs(values - kink) < 0.05] += 0.11
    return values


@pytest.mark.parametrize("op,reference", [
    (lambda x: activations_ops.relu_variant(x, 0.1, 3.0, 0.5),
     lambda x: np.clip(np.where(x > 0.5, x, 0), 0, 3) - 0.1 * np.maximum(0.5 - x, 0)),
    (lambda x: activations_ops.relu_variant(x, threshold=-1.0),
     lambda x: np.where(x > -1, x, 0)),
    (lambda x: activations_ops.mish(x), lambda x: x * np.tanh(np.logaddexp(x, 0))),
], ids=["relu_variant", "relu_threshold_only", "mish"])
def test_keras_activation_helpers(check_op, op, reference):
    check_op(op, [_off_kinks(3, 5)], reference=reference)

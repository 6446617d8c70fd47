"""The Keras 3 activation ops of ``backends/ops/activations.py``: forward against plain-NumPy
references and gradients against finite differences, on every engine (op harness)."""

import numpy as np
import pytest
from scipy.special import expit

from lamina import ops
from lamina.backends.ops import activations as act

RNG = np.random.default_rng(11)
KINKS = (-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0)


def off_kinks(*shape):
    """Float64 data in (-4, 4) at least 0.05 away from every kink of these ops."""
    values = RNG.uniform(-4.0, 4.0, size=shape)
    for kink in KINKS:
        values[np.abs(values - kink) < 0.05] += 0.11
    return values


def softplus_ref(x):
    return np.logaddexp(x, 0)


def sparsemax_ref(z):
    """Sparsemax of each row of ``z`` (Martins & Astudillo 2016), one row at a time."""
    rows = []
    for row in z.reshape(-1, z.shape[-1]):
        ranked = np.sort(row)[::-1]
        k = np.arange(1, row.size + 1)
        support = 1 + k * ranked > np.cumsum(ranked)
        size = k[support][-1]
        tau = (np.cumsum(ranked)[size - 1] - 1) / size
        rows.append(np.maximum(row - tau, 0))
    return np.stack(rows).reshape(z.shape)


ELEMENTWISE = [
    ("celu", lambda x: act.celu(x, alpha=0.7),
     lambda x: np.maximum(x, 0) + 0.7 * np.expm1(np.minimum(x, 0) / 0.7)),
    ("hard_shrink", act.hard_shrink, lambda x: np.where(np.abs(x) > 0.5, x, 0)),
    ("soft_shrink", lambda x: act.soft_shrink(x, threshold=1.0),
     lambda x: np.where(x > 1, x - 1, np.where(x < -1, x + 1, 0))),
    ("hard_sigmoid", act.hard_sigmoid, lambda x: np.clip(x / 6 + 0.5, 0, 1)),
    ("hard_silu", act.hard_silu, lambda x: x * np.clip(x / 6 + 0.5, 0, 1)),
    ("hard_tanh", act.hard_tanh, lambda x: np.clip(x, -1, 1)),
    ("log_sigmoid", act.log_sigmoid, lambda x: np.log(expit(x))),
    ("mish", act.mish, lambda x: x * np.tanh(softplus_ref(x))),
    ("softsign", act.softsign, lambda x: x / (1 + np.abs(x))),
    ("sparse_plus", act.sparse_plus,
     lambda x: np.where(x <= -1, 0, np.where(x >= 1, x, (x + 1) ** 2 / 4))),
    ("sparse_sigmoid", act.sparse_sigmoid, lambda x: np.clip((x + 1) / 2, 0, 1)),
    ("squareplus", lambda x: act.squareplus(x, b=2), lambda x: (x + np.sqrt(x * x + 2)) / 2),
    ("tanh_shrink", act.tanh_shrink, lambda x: x - np.tanh(x)),
    ("threshold", lambda x: act.threshold(x, 0.5, -2.0), lambda x: np.where(x > 0.5, x, -2.0)),
    ("relu_variant", lambda x: act.relu_variant(x, 0.1, 3.0, 0.5),
     lambda x: np.clip(np.where(x > 0.5, x, 0), 0, 3) - 0.1 * np.maximum(0.5 - x, 0)),
    ("relu_threshold_only", lambda x: act.relu_variant(x, threshold=-1.0),
     lambda x: np.where(x > -1, x, 0)),
]


@pytest.mark.parametrize("op,reference", [e[1:] for e in ELEMENTWISE],
                         ids=[e[0] for e in ELEMENTWISE])
def test_elementwise_activation(check_op, op, reference):
    check_op(op, [off_kinks(3, 5)], reference=reference)


@pytest.mark.parametrize("axis", [-1, 0])
def test_glu(check_op, axis):
    def reference(x, axis):
        a, b = np.split(x, 2, axis=axis)
        return a * expit(b)

    check_op(act.glu, [off_kinks(4, 6)], reference=reference, kwargs={"axis": axis})


def test_glu_rejects_odd_axis(engine):
    with pytest.raises(ValueError, match="even"):
        act.glu(np.ones((2, 3), dtype="float32"))


@pytest.mark.parametrize("axis", [-1, 1])
def test_sparsemax(check_op, axis):
    x = RNG.uniform(-1.5, 1.5, size=(3, 5, 4))

    def reference(z, axis):
        return np.moveaxis(sparsemax_ref(np.moveaxis(z, axis, -1)), -1, axis)

    out = check_op(act.sparsemax, [x], reference=reference, kwargs={"axis": axis})[0]
    np.testing.assert_allclose(out.sum(axis=axis), 1.0, atol=1e-12)
    assert (out == 0).any()


def test_keras_names_are_public_ops():
    for name in ("celu", "glu", "hard_shrink", "hard_sigmoid", "hard_silu", "hard_swish",
                 "hard_tanh", "log_sigmoid", "soft_shrink", "softsign", "sparse_plus",
                 "sparse_sigmoid", "sparsemax", "squareplus", "tanh_shrink", "threshold"):
        assert getattr(ops, name) is getattr(act, name)
        assert getattr(ops.nn, name) is getattr(act, name)

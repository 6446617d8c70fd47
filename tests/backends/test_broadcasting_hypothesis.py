"""Property test: binary ops and ``where`` on random broadcast-compatible shapes.

For every drawn set of shapes the forward must equal NumPy's (shape and values) and each
input's gradient must have that input's shape and match central finite differences.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

from lamina import ops

SETTINGS = settings(max_examples=30, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])
BINARY = [
    (ops.add, np.add),
    (ops.subtract, np.subtract),
    (ops.multiply, np.multiply),
    (ops.divide, np.divide),
    (ops.maximum, np.maximum),
]


def signed_values(shape, seed):
    """Float64 values with |x| in [0.5, 2) and random signs: safe divisors, rare ties."""
    rng = np.random.default_rng(seed)
    return np.asarray(rng.uniform(0.5, 2.0, size=shape) * rng.choice([-1.0, 1.0], size=shape))


@pytest.mark.parametrize("op,reference", BINARY, ids=[op.__name__ for op, _ in BINARY])
@SETTINGS
@given(shapes=mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3),
       seed=st.integers(0, 2**16))
def test_binary_ops_broadcast(check_op, op, reference, shapes, seed):
    first, second = shapes.input_shapes
    (out,) = check_op(op, [signed_values(first, seed), signed_values(second, seed + 1)],
                      reference=reference)
    assert out.shape == shapes.result_shape


@SETTINGS
@given(shapes=mutually_broadcastable_shapes(num_shapes=3, max_dims=3, max_side=3),
       seed=st.integers(0, 2**16))
def test_where_broadcasts(check_op, shapes, seed):
    condition_shape, first, second = shapes.input_shapes
    condition = np.random.default_rng(seed).random(condition_shape) > 0.5
    (out,) = check_op(ops.where, [condition, signed_values(first, seed + 1),
                                  signed_values(second, seed + 2)],
                      reference=np.where)
    assert out.shape == shapes.result_shape

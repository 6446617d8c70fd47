"""The autocast scope: autocast Variables read in the scope's dtype by every op, their
gradients back in the variable's dtype, other variables and tensors untouched."""

import numpy as np

import lamina
from lamina import ops
from lamina.backends.autocast import autocast_dtype, autocast_scope


def test_ops_read_autocast_variables_in_the_scope_dtype():
    weight = lamina.Variable(np.array([1.5, -2.0], "float32"), name="w")
    fixed = lamina.Variable(np.array([1.0, 1.0], "float32"), autocast=False, name="f")
    x = lamina.Tensor(np.array([2.0, 4.0], "float16"))
    with autocast_scope("float16"):
        assert autocast_dtype() == "float16"
        product = ops.multiply(x, weight)
        mixed = ops.multiply(x, fixed)
    assert autocast_dtype() is None
    assert product.dtype == np.float16 and mixed.dtype == np.float32
    np.testing.assert_array_equal(product.numpy(), [3.0, -8.0])
    (gradient,) = lamina.grad(ops.sum(product), [weight])
    assert gradient.dtype == np.float32            # cast back to the variable's dtype
    np.testing.assert_array_equal(gradient.numpy(), [2.0, 4.0])
    assert weight.dtype == np.float32


def test_scopes_nest_and_restore():
    with autocast_scope("float16"):
        with autocast_scope(None):
            assert autocast_dtype() is None
        assert autocast_dtype() == "float16"
    assert autocast_dtype() is None

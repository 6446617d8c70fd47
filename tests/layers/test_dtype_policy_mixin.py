"""The dtype policy of every layer (``Layer`` inherits ``DTypePolicyMixin``): policy
properties as Keras 3's, the input autocast rule, the config's ``"dtype"``."""

import numpy as np
import pytest

import lamina
from lamina import layers


def test_properties_and_setter():
    layer = layers.Dense(2, dtype="mixed_float16")
    assert (layer.dtype, layer.compute_dtype, layer.variable_dtype) == (
        "float32", "float16", "float32")
    layer.dtype = "float64"
    assert layer.dtype_policy.name == "float64" and layer.compute_dtype == "float64"
    with pytest.raises(ValueError, match="Cannot interpret `dtype`"):
        layers.Dense(2, dtype=object())


def test_inputs_cast_to_the_compute_dtype():
    # float16 -> float32 layer: cast up (a final Activation(dtype="float32"))
    up = layers.Activation("linear", dtype="float32")(lamina.Tensor(np.ones(2, "float16")))
    assert up.dtype == np.float32
    # any float -> mixed layer: cast to float16, with gradients flowing back
    x = lamina.Tensor(np.ones((1, 3), "float32"), requires_grad=True)
    out = layers.Dense(2, dtype="mixed_float16")(x)
    assert out.dtype == np.float16
    (gradient,) = lamina.grad(lamina.ops.sum(out), [x])
    assert gradient.dtype == np.float32
    # float64 into a plain float32 layer stays float64 (lamina's float64 checks)
    wide = layers.Activation("linear")(lamina.Tensor(np.ones(2, "float64")))
    assert wide.dtype == np.float64
    # integers are never cast
    ids = layers.Activation("linear", dtype="mixed_float16")(lamina.Tensor(np.ones(2, "int32")))
    assert ids.dtype == np.int32


def test_config_dtype():
    assert layers.Dense(2).get_config()["dtype"] == "float32"
    config = layers.Dense(2, dtype="mixed_float16").get_config()
    assert config["dtype"] == {"module": "keras", "class_name": "DTypePolicy",
                               "config": {"name": "mixed_float16"}, "registered_name": None}
    assert layers.Dense.from_config(config).dtype_policy.name == "mixed_float16"

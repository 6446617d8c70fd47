"""Keras 3's type promotion (``result_type``) and the ops and layers that follow it.
Expected dtypes: ``tests/data/keras/result_types.json``, written by Keras 3.15.1 with
``tests/data/keras/make_result_types.py``."""

import json
import os

import numpy as np
import pytest

import lamina
from lamina import layers, ops
from lamina.backends.dtypes import promote, result_type, standardize_dtype

with open(os.path.join(os.path.dirname(__file__), "..", "data", "keras",
                       "result_types.json")) as _file:
    KERAS = json.load(_file)
PYTHON = {"int": int, "float": float, "pybool": bool}


@pytest.mark.parametrize("pair", sorted(KERAS["result_type"]))
def test_result_type_matches_keras(pair):
    a, b = pair.split(",")
    expected = KERAS["result_type"][pair]
    if expected == "error":
        with pytest.raises(ValueError, match="no implicit dtype promotion"):
            result_type(a, PYTHON.get(b, b))
    else:
        assert result_type(a, PYTHON.get(b, b)) == expected


def test_result_type_of_nothing_weak_only_and_numpy_dtypes():
    assert result_type() == lamina.config.floatx()
    assert result_type(int) == "int32"             # Keras: a weak int resolves to int32
    assert result_type(int, float) == "float32"
    assert result_type(np.dtype("int8"), np.int16) == "int16"
    assert result_type(None, "float16") == "float32"   # None is floatx()
    assert result_type("int64", "uint64", float) == "float32"
    with pytest.raises(ValueError, match="not a valid dtype"):
        result_type("string", "int32")


def _operand(dtype):
    return {"int": 2, "float": 1.5}.get(dtype) if dtype in ("int", "float") \
        else np.ones((2, 2), dtype)


@pytest.mark.parametrize("case", sorted(KERAS["ops"]))
def test_ops_give_keras_dtypes(case):
    op, a, b = case.split(",")
    out = getattr(ops, op)(_operand(a), _operand(b))
    expected = KERAS["ops"][case]
    if op == "matmul" and a == b == "int8":
        expected = "int8"   # Keras widens int8 @ int8 to int32; lamina keeps the lattice's
    assert standardize_dtype(out.dtype) == expected


@pytest.mark.parametrize("dtype", sorted(KERAS["dense"]))
def test_dense_on_integer_boolean_and_float64_input_gives_float32(dtype):
    assert KERAS["dense"][dtype] == "float32"
    out = layers.Dense(2)(np.ones((2, 3), dtype))
    assert out.dtype == "float32"
    if dtype != "float64":   # a float64 Tensor stays float64 in lamina (its float64 checks)
        model = lamina.Sequential([layers.Input((3,), dtype=dtype), layers.Dense(2)])
        assert model.predict(np.ones((2, 3), dtype), verbose=0).dtype == "float32"


def test_integer_input_trains_a_dense_model_in_float32():
    model = lamina.Sequential([layers.Input((3,), dtype="int64"), layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    model.train_on_batch(np.arange(6).reshape(2, 3), np.ones((2, 1), "float32"))
    assert all(w.dtype == "float32" for w in model.get_weights())


def test_promote_casts_only_what_differs():
    a, b = np.ones(2, "float32"), np.ones(2, "int64")
    a2, b2 = promote(a, b)
    assert a2 is a and b2.dtype == "float32"
    assert promote(np.ones(2, "int32"), 1.5)[1] == 1.5   # Python numbers stay weak
    assert promote(np.ones(2, "int32"), 1.5)[0].dtype == "float32"


def test_gradients_flow_through_promoted_operands():
    x = lamina.Variable(np.ones((2, 2), "float32"))
    (g,) = lamina.grad(ops.sum(ops.multiply(x, np.full((2, 2), 3, "int64"))), [x])
    assert g.dtype == "float32"
    np.testing.assert_allclose(np.asarray(g), 3.0)


@pytest.mark.parametrize("layer", [layers.BatchNormalization, layers.LayerNormalization])
def test_normalization_of_integer_images_is_float32(layer):
    # Keras 3.15 (torch): float32 for uint8 input, as for Dense
    x = np.arange(32, dtype="uint8").reshape(2, 4, 4, 1)
    for training in (False, True):
        out = layer()(x, training=training) if layer is layers.BatchNormalization \
            else layer()(x)
        assert out.dtype == "float32"


def test_where_concatenate_and_stack_promote_as_keras():
    # Keras 3.15 (torch): float32, float32, uint8, float32, float16, int32, int16
    c = np.array([True, False])
    i32, f32, f16, u8, i64 = (np.ones(2, d) for d in ("int32", "float32", "float16",
                                                       "uint8", "int64"))
    got = [ops.where(c, i32, f32), ops.where(c, i32, 1.5), ops.where(c, u8, 1),
           ops.concatenate([i32, f32]), ops.concatenate([i64, f16]), ops.stack([u8, i32]),
           ops.concatenate([u8, np.ones(2, "int8")])]
    assert [standardize_dtype(t.dtype) for t in got] == [
        "float32", "float32", "uint8", "float32", "float16", "int32", "int16"]


@pytest.mark.parametrize("layer", [layers.Conv2D, layers.Conv2DTranspose])
def test_integer_images_convolve_in_float32(layer):
    # Keras' promotion of uint8 with a float32 kernel is float32 (its TensorFlow and JAX
    # backends compute so; its torch backend refuses a uint8 convolution)
    x = np.arange(2 * 6 * 6, dtype="uint8").reshape(2, 6, 6, 1)
    conv = layer(2, 3)
    out = conv(x)
    assert out.dtype == "float32"
    np.testing.assert_allclose(np.asarray(out), np.asarray(conv(x.astype("float32"))))

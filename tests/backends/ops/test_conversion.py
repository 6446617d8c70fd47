"""Conversions and dtype casts in ``lamina.ops`` (``backends/ops/conversion.py``): tensors
to and from NumPy, ``cast``/``saturate_cast`` and their gradients, ``copy``/``array`` and
the array facts (``dtype``, ``size``, ``ndim``, ``is_tensor``), every engine."""

import numpy as np
import pytest

import lamina
from lamina import ops

RNG = np.random.default_rng(17)


def rand(*shape):
    return np.asarray(RNG.uniform(-2.0, 2.0, size=shape))


def test_convert_to_tensor_and_numpy(engine):
    t = ops.convert_to_tensor([[1.0, 2.0]])
    assert isinstance(t, lamina.Tensor) and t.dtype == np.float32
    assert ops.convert_to_tensor(t) is t
    assert ops.convert_to_tensor(t, dtype="float64").dtype == np.float64
    assert ops.convert_to_tensor(np.array([1, 2]), dtype="int32").dtype == np.int32
    values = ops.convert_to_numpy(t)
    assert isinstance(values, np.ndarray)
    np.testing.assert_array_equal(values, [[1.0, 2.0]])
    np.testing.assert_array_equal(ops.convert_to_numpy([3, 4]), [3, 4])
    with pytest.raises(ValueError, match="dense"):
        ops.convert_to_tensor([1.0], sparse=True)


def test_array_facts(engine):
    x = ops.ones((2, 3, 4))
    assert ops.is_tensor(x) and not ops.is_tensor(np.ones(2))
    assert ops.dtype(x) == "float32" and ops.dtype(np.array([1], "int32")) == "int32"
    assert ops.size(x) == 24 and ops.ndim(x) == 3 and ops.shape(x) == (2, 3, 4)


def test_saturate_cast(engine):
    x = np.array([-20.0, 3.7, 300.0])
    np.testing.assert_array_equal(ops.saturate_cast(x, "uint8").numpy(), [0, 3, 255])
    np.testing.assert_array_equal(ops.saturate_cast(np.array([200, -200]), "int8").numpy(),
                                  [127, -128])
    assert ops.saturate_cast(x, "float32").dtype == np.float32


def test_copy_and_array(check_op):
    x = rand(2, 3)
    (out,) = check_op(ops.copy, [x], reference=lambda v: v)
    source = lamina.Tensor(x)
    duplicate = ops.array(source)
    duplicate.data[0, 0] = 99.0
    assert source.numpy()[0, 0] != 99.0
    assert ops.array([1, 2], dtype="int32").dtype == np.int32


def test_cast_to_float64(check_op):
    (out,) = check_op(lambda x: ops.cast(x, "float64"), [rand(2, 3)], reference=lambda x: x,
                      check_float32=False)
    assert out.dtype == np.float64


def test_cast_to_float32_gradient_is_cast_back(engine):
    x = lamina.Tensor(rand(2, 3), requires_grad=True)
    y = ops.cast(x, "float32")
    assert y.dtype == np.float32
    np.testing.assert_array_equal(y.numpy(), x.numpy().astype(np.float32))
    upstream = np.arange(6, dtype=np.float32).reshape(2, 3) / 7
    (gx,) = lamina.grad(y, [x], output_gradient=upstream)
    assert gx.dtype == np.float64
    np.testing.assert_array_equal(gx.numpy(), upstream.astype(np.float64))


def test_cast_to_int_has_no_gradient(engine):
    x = lamina.Tensor(np.array([1.7, -2.2]), requires_grad=True)
    y = ops.cast(x, "int32")
    np.testing.assert_array_equal(y.numpy(), [1, -2])
    assert y.dtype == np.int32
    (gx,) = lamina.grad(ops.sum(ops.cast(y, "float64") * 1.0), [x])
    np.testing.assert_array_equal(gx.numpy(), [0.0, 0.0])


def test_view_matches_keras(engine):
    # keras.ops.view (KERAS_BACKEND=torch) printed these for the same inputs
    ints = ops.view(np.array([1, 2, 3], "int32"), "float32").numpy()
    np.testing.assert_array_equal(ints, np.array([1, 2, 3], "int32").view("float32"))
    assert ints.dtype == np.float32 and ints[0] == np.float32(1.401298464324817e-45)
    assert ops.view(np.array([1.0, -2.0], "float32"), "int16").numpy().tolist() == [
        0, 16256, 0, -16384]
    assert ops.view(np.array([[1, 2, 3, 4]], "int16"), "int32").numpy().tolist() == [
        [131073, 262147]]
    same = ops.view(np.array([1.5], "float32"))
    assert same.dtype == np.float32 and same.numpy().tolist() == [1.5]


def test_view_bad_arguments():
    with pytest.raises(ValueError, match="scalar"):
        ops.view(np.float32(1.0), "int16")
    with pytest.raises(ValueError, match="multiple of 4"):
        ops.view(np.array([1, 2, 3], "int16"), "int32")


def test_convert_to_tensor_of_strings_feeds_a_string_input_model():
    # Keras 3.15 (tensorflow backend): keras.ops.convert_to_tensor([["the cat"]]) is a
    # tf.string tensor of shape (1, 1) that a keras.Input(shape=(1,), dtype="string")
    # model with a TextVectorization takes; lamina's string data are NumPy string arrays.
    strings = ops.convert_to_tensor([["the cat sat"]])
    assert isinstance(strings, np.ndarray) and strings.shape == (1, 1)
    assert strings.dtype.kind == "U"
    assert ops.convert_to_tensor("cat", dtype="string").tolist() == "cat"
    vectorizer = lamina.layers.TextVectorization(output_sequence_length=4)
    vectorizer.adapt(["the cat sat", "the dog"])
    string_input = lamina.Input(shape=(1,), dtype="string")
    model = lamina.Model(string_input, vectorizer(string_input))
    np.testing.assert_array_equal(np.asarray(model(strings)),
                                  np.asarray(vectorizer(np.array([["the cat sat"]]))))
    assert isinstance(ops.convert_to_tensor([[1, 2]]), lamina.Tensor)  # numbers stay Tensors


def test_convert_to_tensor_of_a_list_converts_its_elements_once():
    # The string check reads the first leaf only: a list of arrays (GPU arrays on the CuPy
    # engine) is not converted to NumPy an extra time before the Tensor is made.
    class Counted:
        calls = 0

        def __array__(self, dtype=None, copy=None):
            Counted.calls += 1
            return np.ones(3, dtype="float32")

    items = [Counted(), Counted()]
    lamina.Tensor(items)
    direct, Counted.calls = Counted.calls, 0
    tensor = ops.convert_to_tensor(items)
    assert Counted.calls == direct
    np.testing.assert_array_equal(tensor.numpy(), np.ones((2, 3)))
    assert ops.convert_to_tensor((["a", "b"], ["c", "d"])).dtype.kind == "U"
    assert ops.convert_to_tensor([[b"ab"]]).tolist() == [["ab"]]
    assert isinstance(ops.convert_to_tensor([]), lamina.Tensor)

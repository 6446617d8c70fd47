"""``==`` / ``!=`` on tensors are elementwise, as on Keras tensors (torch backend), so the
keras.io custom-metric idiom ``ops.cast(y_true, "int32") == ops.cast(y_pred, "int32")``
counts matches; tensors stay hashable; Variables (kept in weight lists) compare by
identity."""

import numpy as np

import lamina
from lamina import ops


def test_equality_is_elementwise_and_broadcasts():
    y_true = ops.convert_to_tensor(np.array([1.0, 2.0, 3.0]))
    y_pred = ops.reshape(ops.argmax(ops.convert_to_tensor(np.eye(4)[[1, 2, 0]]), axis=1),
                         (-1, 1))
    values = ops.cast(y_true, "int32") == ops.cast(y_pred, "int32")
    # Keras 3.15 (torch): the same expression is a (3, 3) bool tensor with 2 True.
    assert values.shape == (3, 3) and values.dtype == np.bool_
    assert float(ops.sum(ops.cast(values, "float32"))) == 2.0
    np.testing.assert_array_equal(np.asarray(ops.ones((2,)) != 1), [False, False])


def test_none_and_strings_compare_unequal_and_tensors_hash():
    t = ops.ones((2,))
    assert (t == None) is False and (t != None) is True  # noqa: E711
    assert (t == "relu") is False
    assert {t: 1}[t] == 1 and [t] == [t]


def test_variables_compare_by_identity():
    v, w = lamina.Variable(np.ones(3)), lamina.Variable(np.ones(3))
    assert v in [w, v] and v != w and v == v and len({v, w}) == 2


def test_modulo_floor_division_and_bitwise_operators():
    # Keras 3.15 (torch) eager tensors: [1, 2], [1, 1], [1, 2], [4, 7], [False, True];
    # int32 // 2.0 is float32 ([2., 3.]) under Keras' promotion
    t = ops.convert_to_tensor(np.array([5, 6], "int32"))
    flags = ops.convert_to_tensor(np.array([True, False]))
    np.testing.assert_array_equal(np.asarray(t % 4), [1, 2])
    np.testing.assert_array_equal(np.asarray(7 // t), [1, 1])
    np.testing.assert_array_equal(np.asarray(t & 3), [1, 2])
    np.testing.assert_array_equal(np.asarray(1 ^ t), [4, 7])
    np.testing.assert_array_equal(np.asarray(~flags), [False, True])
    np.testing.assert_array_equal(np.asarray(flags | ~flags), [True, True])
    assert (t // 2.0).dtype == "float32" and (t % 4).dtype == "int32"

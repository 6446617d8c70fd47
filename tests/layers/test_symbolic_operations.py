"""Operators on symbolic tensors (``x + inputs``, ``1.0 - x``, ``x[:, 1:]``, ...) in
functional models: Keras 3's outputs, operation names and shapes, gradients, configs and
saved files."""

import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.layers.naming import reset_names
from lamina.layers.symbolic_operations import TensorOperation

WEIGHTS = [np.array([[0.5, -1.0], [2.0, 0.25]], "float32"), np.array([0.1, -0.2], "float32"),
           np.array([[1.0], [-0.5]], "float32"), np.array([0.3], "float32")]
X = (np.arange(12, dtype="float32").reshape(2, 3, 2) - 5) / 4
# Keras 3.15.1 (torch) on the same model, weights and input; the names: model.operations.
KERAS_OUTPUT = np.array([[[3.0328128], [0.89687496]], [[1.734375], [4.707813]]], "float32")
KERAS_NAMES = ["input_layer", "dense", "add", "multiply", "subtract", "negative", "get_item_1",
               "get_item", "absolute", "true_divide", "power", "add_1", "matmul", "dense_1"]
KERAS_SHAPES = [(None, 3, 2)] * 6 + [(None, 2, 2)] * 7 + [(None, 2, 1)]


def operator_model():
    reset_names()
    inputs = lamina.Input((3, 2))
    dense = layers.Dense(2)(inputs)
    mixed = (-(1.0 - (dense + inputs) * 2.0))[:, 1:] / 4 + abs(dense[:, :2]) ** 2
    outputs = layers.Dense(1)(mixed @ np.ones((2, 2), "float32"))
    model = lamina.Model(inputs, outputs)
    model.set_weights(WEIGHTS)
    return model


def test_operators_match_keras_values_names_and_shapes():
    model = operator_model()
    np.testing.assert_allclose(model.predict(X, verbose=0), KERAS_OUTPUT, rtol=1e-6)
    assert [layer.name for layer in model.operations] == KERAS_NAMES
    assert [layer.output.shape for layer in model.operations] == KERAS_SHAPES
    # Keras' model.layers leaves the operations out
    assert [layer.name for layer in model.layers] == ["input_layer", "dense", "dense_1"]


def test_residual_sum_passes_gradients_to_both_branches():
    inputs = lamina.Input((4,))
    hidden = layers.Dense(4)
    outputs = layers.Dense(1)(hidden(inputs) + inputs)
    model = lamina.Model(inputs, outputs)
    x = lamina.Tensor(np.ones((2, 4), "float32"), requires_grad=True)
    loss = lamina.ops.sum(model(x) ** 2)
    *kernel_grads, x_grad = lamina.grad(loss, hidden.trainable_weights + [x])
    # d loss / d x = the path through ``hidden`` plus the residual path
    head = model.layers[-1].get_weights()[0]
    kernel = hidden.get_weights()[0]
    upstream = 2 * np.asarray(model(x)) @ head.T
    np.testing.assert_allclose(np.asarray(x_grad), upstream @ kernel.T + upstream, rtol=1e-5)
    assert all(np.abs(np.asarray(g)).sum() > 0 for g in kernel_grads)


def test_comparison_and_integer_division_dtypes():
    assert (lamina.Input((2,)) > 0).dtype == "bool"           # Keras: bool
    assert (lamina.Input((2,), dtype="int32") / 2).dtype == "float32"   # Keras: float32


@pytest.mark.parametrize("path", ["model.keras", "model.h5"])
def test_saved_model_with_operators_predicts_the_same(tmp_path, path):
    model = operator_model()
    model.save(tmp_path / path)
    restored = lamina.saving.load_model(tmp_path / path)
    np.testing.assert_allclose(restored.predict(X, verbose=0), KERAS_OUTPUT, rtol=1e-6)


def test_config_writes_slices_as_keras_does():
    config = operator_model().get_config()
    entry = next(e for e in config["layers"] if e["name"] == "get_item")   # x[:, 1:]
    key = entry["inbound_nodes"][0]["args"][1]
    assert key[1] == {"class_name": "__slice__", "config": {"start": 1, "stop": None,
                                                            "step": None}}


def test_unknown_operation_is_a_value_error():
    with pytest.raises(ValueError, match="unknown operation 'modulo'"):
        TensorOperation("modulo")


def test_iterating_a_symbolic_tensor_is_refused():
    with pytest.raises(NotImplementedError, match="iterating over a symbolic tensor"):
        list(lamina.Input((2,)))


def test_operations_are_not_layers_but_are_in_the_summary():
    # Keras 3.15: model.layers ['input_layer', 'dense'], model.operations
    # ['input_layer', 'add', 'dense'], get_layer('add') a ValueError, summary row "add (Add)"
    reset_names()
    inputs = lamina.Input((3,))
    model = lamina.Model(inputs, layers.Dense(2)(inputs + 1))
    assert [layer.name for layer in model.layers] == ["input_layer", "dense"]
    assert [layer.name for layer in model.operations] == ["input_layer", "add", "dense"]
    with pytest.raises(ValueError, match="no layer named 'add'"):
        model.get_layer("add")
    assert [w.path for w in model.weights] == ["dense/kernel", "dense/bias"]
    lines = []
    model.summary(print_fn=lines.append)
    assert "add (Add)" in lines[0]


def new_operators_model():
    reset_names()
    inputs = lamina.Input((3,))
    mask = (inputs != 0.5) & (inputs > -1.0) | ~(inputs < 0.0) ^ (inputs > 1.0)
    rest = (inputs % 0.75) + (inputs // 0.5) + (2.0 % (inputs + 3.0)) + (7.0 // (inputs + 3.0))
    return lamina.Model(inputs, [mask, rest])


# Keras 3.15.1 (torch) on the same model and input.
NEW_X = np.array([[-1.5, -0.25, 0.5], [0.0, 1.25, 2.0]], "float32")
KERAS_MASK = np.array([[False, True, True], [True, True, True]])
KERAS_REST = np.array([[1.5, 3.5, 5.5], [4.0, 5.5, 7.5]], "float32")
KERAS_CLASSES = ["InputLayer", "Less", "Mod", "FloorDivide", "Add", "NotEqual", "Greater",
                 "LogicalNot", "Greater", "Add", "Mod", "Add", "LogicalAnd", "LogicalXor",
                 "Add", "FloorDivide", "LogicalOr", "Add"]   # Keras' model.operations


def test_comparison_logical_modulo_and_floor_division_operators_match_keras():
    model = new_operators_model()
    mask, rest = model.predict(NEW_X, verbose=0)
    np.testing.assert_array_equal(mask, KERAS_MASK)
    np.testing.assert_allclose(rest, KERAS_REST, rtol=1e-6)
    assert [getattr(op, "keras_class_name", type(op).__name__)
            for op in model.operations] == KERAS_CLASSES


def test_new_operators_round_trip_through_config_and_files(tmp_path):
    model = new_operators_model()
    clone = lamina.Model.from_config(model.get_config())
    model.save(tmp_path / "ops.keras")
    loaded = lamina.saving.load_model(tmp_path / "ops.keras")
    for other in (clone, loaded):
        mask, rest = other.predict(NEW_X, verbose=0)
        np.testing.assert_array_equal(mask, KERAS_MASK)
        np.testing.assert_allclose(rest, KERAS_REST, rtol=1e-6)


def test_symbolic_dtypes_follow_keras_promotion():
    ints = lamina.Input((2,), dtype="int32")
    assert (ints + 1.5).dtype == "float32"       # Keras: float32
    assert (ints + 1).dtype == "int32"
    assert (ints // 2).dtype == "int32"
    assert (ints != 1).dtype == "bool"
    assert (lamina.Input((2,), dtype="int64") * lamina.Input((2,))).dtype == "float32"


def test_equality_is_identity_and_tensors_stay_hashable():
    x = lamina.Input((2,))   # as Keras' KerasTensor: == compares identities, != records
    assert (x == x) is True and len({x, x}) == 1
    assert (x != 0).dtype == "bool"

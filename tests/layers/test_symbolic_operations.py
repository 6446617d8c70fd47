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
# Keras 3.15.1 (torch) on the same model, weights and input.
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
    assert [layer.name for layer in model.layers] == KERAS_NAMES
    assert [layer.output.shape for layer in model.layers] == KERAS_SHAPES


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

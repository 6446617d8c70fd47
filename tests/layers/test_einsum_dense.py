"""EinsumDense: Keras 3's outputs, weights and config for several equations (GEMM fast path
and einsum fallback), a Keras .keras file both ways, the variance-scaling fans, gradients,
configs, shapes, models and bad arguments."""

import json
import os
import zipfile

import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.layers.einsum_dense import EinsumPlan

from harness.layers import (test_config_round_trip_and_output_shape,  # noqa: F401
                            test_gradients_match_finite_differences,
                            test_inside_sequential_and_functional_models)
from harness.more_keras_references import (INDEX, REFERENCES, case_id,
                                           check_more_against_keras, more_cases)

RNG = np.random.default_rng(5)
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "keras")
KERAS_FILE = os.path.join(DATA, "keras_einsum_dense.keras")


def rand(*shape):
    return RNG.uniform(-1.0, 1.0, size=shape)


@pytest.mark.parametrize("case", more_cases("EinsumDense"), ids=case_id)
def test_matches_keras(case):
    check_more_against_keras(case)


@pytest.mark.parametrize("equation, shape, output, one_gemm", [
    ("ab,bc->ac", (2, 3), [4], True), ("abc,cd->abd", (2, 3, 5), [None, 4], True),
    ("abc,cde->abde", (2, 3, 5), [3, 2, 4], True), ("...b,bc->...c", (2, 3, 5, 4), [4], True),
    ("abc,cd->adb", (2, 3, 5), [4, 3], True), ("abc,dc->abd", (2, 3, 5), [None, 4], True),
    ("ab...,bc->ac...", (2, 3, 5), [4], True), ("abc,bcd->abd", (2, 3, 5), [3, 4], False)])
def test_plain_contractions_take_the_one_gemm_path(equation, shape, output, one_gemm):
    """The fast path exactly where the equation is one GEMM (a kernel axis shared with the
    input and the output is einsum's)."""
    plan = EinsumPlan(equation, None, shape, output, layers.Dense(1))
    assert (plan.gemm is not None) == one_gemm


def _keras_layer_configs():
    with zipfile.ZipFile(KERAS_FILE) as archive:
        config = json.loads(archive.read("config.json"))
    return {entry["config"]["name"]: entry["config"] for entry in config["config"]["layers"]
            if entry["class_name"] == "EinsumDense"}


def test_keras_file_loads_and_predicts_as_keras():
    model = lamina.load_model(KERAS_FILE)
    x = REFERENCES["einsum_model/x"]
    np.testing.assert_allclose(model.predict(x, verbose=0), REFERENCES["einsum_model/pred"],
                               rtol=1e-5, atol=1e-5)
    assert [type(layer).__name__ for layer in model.layers[1:]] == ["EinsumDense"] * 3


def test_lamina_files_keep_keras_config_keys_and_round_trip(tmp_path):
    """lamina's configs have Keras' keys and values (less the quantization options lamina
    lacks); its own .keras file reloads to the same predictions, and Keras read lamina's
    re-saved file to Keras' predictions when the data was made (``lamina_to_keras``)."""
    model = lamina.load_model(KERAS_FILE)
    for name, keras_config in _keras_layer_configs().items():
        config = model.get_layer(name).get_config()
        expected = {k: v for k, v in keras_config.items() if k != "quantization_config"}
        assert set(config) == set(expected)
        for key in ("equation", "output_shape", "bias_axes", "activation"):
            assert config[key] == expected[key]
    path = str(tmp_path / "einsum.keras")
    model.save(path)
    x = REFERENCES["einsum_model/x"]
    np.testing.assert_allclose(lamina.load_model(path).predict(x, verbose=0),
                               REFERENCES["einsum_model/pred"], rtol=1e-5, atol=1e-5)
    assert INDEX["lamina_to_keras"]["max_abs_diff_load_model"] < 1e-5


def test_variance_scaling_kernel_counts_fans_over_the_equation_axes():
    """As Keras: glorot_uniform's fans are the contracted axes (fan_in) and the output
    axes (fan_out) of the kernel, not its last two axes."""
    layer = layers.EinsumDense("abc,cde->abde", output_shape=(None, 6, 7),
                               kernel_initializer=lamina.initializers.GlorotUniform(seed=3))
    layer.build((None, 4, 5))
    explicit = lamina.initializers.GlorotUniform(seed=3, input_axes=[0], output_axes=[1, 2])
    np.testing.assert_array_equal(layer.kernel.numpy(), explicit((5, 6, 7)))
    assert layer.get_config()["kernel_initializer"]["config"] == {"seed": 3}


def test_output_shape_fills_unknown_sizes_from_the_input():
    layer = layers.EinsumDense("abc,cd->abd", output_shape=(None, 64), bias_axes="d")
    outputs = layer(lamina.Input((32, 128)))
    assert tuple(outputs.shape) == (None, 32, 64)
    assert layer.compute_output_shape((None, 32, 128)) == (None, 32, 64)
    assert [w.shape for w in layer.weights] == [(128, 64), (64,)]


@pytest.mark.parametrize("kwargs, message", [
    ({"equation": "ab->b", "output_shape": 3}, "equation of the form"),
    ({"equation": "ab,bc->ac", "output_shape": (3, 4)}, "output axes"),
    ({"equation": "ab,bc->ac", "output_shape": 3, "bias_axes": "z"}, "bias_axes"),
    ({"equation": "abc,cd->abd", "output_shape": (5, 3)}, "shared axis 'b'"),
    ({"equation": "ab,bcz->ac", "output_shape": 3}, "kernel axis 'z'"),
])
def test_bad_equations_raise_naming_the_layer(kwargs, message):
    layer = layers.EinsumDense(**kwargs, name="proj")
    with pytest.raises(ValueError, match=message) as error:
        layer.build((None, 3, 4) if "abc" in kwargs["equation"] else (None, 4))
    assert "'proj' (EinsumDense)" in str(error.value)
    assert not layer.weights


@pytest.mark.parametrize("output_shape", ["4", (4, 0), 2.5])
def test_bad_output_shape_raises(output_shape):
    with pytest.raises(ValueError, match="output_shape"):
        layers.EinsumDense("ab,bc->ac", output_shape=output_shape)


def _make(equation, output_shape, **kwargs):
    return lambda: layers.EinsumDense(equation, output_shape, **kwargs)


CASES = [
    (_make("ab,bc->ac", 3, bias_axes="c", activation="relu"), (4, 5)),
    (_make("abc,cde->abde", (None, 2, 3), bias_axes="de"), (2, 3, 4)),
    (_make("...b,bc->...c", 3, bias_axes="c", activation="gelu"), (2, 3, 2, 4)),
    (_make("abc,cd->adb", (3, 4), bias_axes="d", activation="tanh"), (2, 4, 5)),
    (_make("abc,bcd->abd", (3, 2), bias_axes="bd"), (2, 3, 4)),
    (_make("ab...,bc->ac...", (2,), bias_axes="c"), (2, 4, 3)),
]
CASE_IDS = ["gemm_relu", "gemm_two_out_axes", "ellipsis_gelu", "transposed_out",
            "shared_axis_einsum", "right_ellipsis"]

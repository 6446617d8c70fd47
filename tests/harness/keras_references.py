"""Keras 3's outputs for fixed layers on fixed inputs (``from harness.keras_references
import ...``), recorded by ``tests/data/keras/make_layer_references.py`` in
``tests/data/keras/layer_references.npz``.

Each layer test module runs the cases of the classes it defines::

    @pytest.mark.parametrize("case", keras_cases("lamina.layers.pooling"), ids=case_id)
    def test_matches_keras(case):
        check_against_keras(case)

:func:`check_against_keras` builds the layer in lamina from the class name (an alias
where the case uses one) and the same constructor keyword arguments Keras took, sets the
same weights, checks the weight names and shapes against Keras' and the output against
Keras' (float32, ``atol=1e-5``).
"""

import json
from pathlib import Path

import numpy as np

import lamina

DATA = Path(__file__).resolve().parents[1] / "data" / "keras" / "layer_references.npz"
REFERENCES = np.load(DATA)
INDEX = json.loads(str(REFERENCES["cases"]))


def keras_cases(module):
    """The recorded cases whose lamina class is defined in ``module`` (a dotted name)."""
    return [case for case in INDEX["cases"]
            if getattr(lamina.layers, case["class_name"]).__module__ == module]


def case_id(case):
    """The case's id, for pytest."""
    return case["id"]


def check_against_keras(case):
    """``case`` rebuilt in lamina gives Keras' weight names, shapes and output."""
    name = case["id"]
    layer = getattr(lamina.layers, case["class_name"])(**case["kwargs"])
    x = REFERENCES[f"{name}/x"]
    weights = [REFERENCES[f"{name}/w{i}"] for i in range(len(case["weight_names"]))]
    layer.build(x.shape)
    set_keras_weights(layer, case["weight_names"], weights)
    kwargs = {"mask": REFERENCES[f"{name}/mask"]} if case["mask"] else {}
    got = layer(x, **kwargs).numpy()
    expected = REFERENCES[f"{name}/output"]
    assert_like_keras(got, expected, name)
    assert tuple(layer.compute_output_shape(x.shape)) == expected.shape


def set_keras_weights(layer, weight_names, weights):
    """Check the built ``layer``'s weight names and shapes against Keras' and set
    ``weights`` (NumPy arrays, in Keras' order)."""
    assert [w.name for w in layer.weights] == weight_names
    assert [tuple(w.shape) for w in layer.weights] == [w.shape for w in weights]
    layer.set_weights(weights)


def assert_like_keras(got, expected, name):
    """lamina's float32 output ``got`` equals Keras' ``expected`` (``atol=1e-5``)."""
    assert got.dtype == np.float32
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5,
                               err_msg=f"{name}: lamina differs from Keras")

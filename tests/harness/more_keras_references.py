"""Keras 3's outputs for EinsumDense, AdditiveAttention, RMSNormalization, StackedRNNCells
and SpectralNormalization on fixed inputs and weights (``from harness.more_keras_references
import ...``), recorded by ``tests/data/keras/make_more_layer_references.py`` in
``tests/data/keras/more_layer_references.npz``.

A test module runs the cases of one class::

    @pytest.mark.parametrize("case", more_cases("EinsumDense"), ids=case_id)
    def test_matches_keras(case):
        check_more_against_keras(case)

:func:`check_more_against_keras` builds the layer in lamina as the script built it in
Keras (:func:`make_case_layer`, the script's own builder), sets the same weights, checks the weight names and shapes
and the output (float32, ``atol=1e-5``), and for ``"training"`` cases the weights after the
call.
"""

import importlib.util
import json
from pathlib import Path

import numpy as np

import lamina

from harness.keras_references import assert_like_keras, set_keras_weights

DATA = Path(__file__).resolve().parents[1] / "data" / "keras" / "more_layer_references.npz"
REFERENCES = np.load(DATA)
INDEX = json.loads(str(REFERENCES["cases"]))


def _load_script():
    path = DATA.parent / "make_more_layer_references.py"
    spec = importlib.util.spec_from_file_location("make_more_layer_references", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_SCRIPT = _load_script()


def more_cases(class_name):
    """The recorded cases of ``class_name``."""
    return [case for case in INDEX["cases"] if case["class_name"] == class_name]


def case_id(case):
    """The case's id, for pytest."""
    return case["id"]


def case_arrays(case, prefix):
    """The case's arrays ``<id>/<prefix>0``, ``<prefix>1``, ... in order."""
    arrays, i = [], 0
    while f"{case['id']}/{prefix}{i}" in REFERENCES:
        arrays.append(REFERENCES[f"{case['id']}/{prefix}{i}"])
        i += 1
    return arrays


def make_case_layer(case):
    """The case's layer built in lamina by the script's own builder (given ``lamina`` for
    ``keras``: the two share the ``layers`` API)."""
    return _SCRIPT.make_layer(lamina, case["class_name"], case["kwargs"], case["options"])


def check_more_against_keras(case):
    """``case`` rebuilt in lamina gives Keras' weight names, shapes and output; returns
    the layer."""
    layer = make_case_layer(case)
    xs = case_arrays(case, "x")
    inputs = xs[0] if len(xs) == 1 else xs
    layer.build(xs[0].shape if len(xs) == 1 else [x.shape for x in xs])
    set_keras_weights(layer, case["weight_names"], case_arrays(case, "w"))
    kwargs = {}
    if "mask" in case["options"]:
        masks = case_arrays(case, "mask")
        kwargs["mask"] = masks[0] if len(masks) == 1 else masks
    if "training" in case["options"]:
        kwargs["training"] = True
    assert_like_keras(layer(inputs, **kwargs).numpy(), REFERENCES[f"{case['id']}/output"],
                      case["id"])
    for got_weight, keras_weight in zip(layer.get_weights(), case_arrays(case, "after")):
        np.testing.assert_allclose(got_weight, keras_weight, rtol=1e-5, atol=1e-5,
                                   err_msg=f"{case['id']}: weights after the call")
    return layer

"""Keras 3's outputs for EinsumDense, AdditiveAttention, RMSNormalization, StackedRNNCells
and SpectralNormalization on fixed inputs and weights (``from harness.more_keras_references
import ...``), recorded by ``tests/data/keras/make_more_layer_references.py`` in
``tests/data/keras/more_layer_references.npz``.

A test module runs the cases of one class::

    @pytest.mark.parametrize("case", more_cases("EinsumDense"), ids=case_id)
    def test_matches_keras(case):
        check_more_against_keras(case)

:func:`check_more_against_keras` builds the layer in lamina as the script built it in
Keras (:func:`make_case_layer`), sets the same weights, checks the weight names and shapes
and the output (float32, ``atol=1e-5``), and for ``"training"`` cases the weights after the
call.
"""

import json
from pathlib import Path

import numpy as np

import lamina

DATA = Path(__file__).resolve().parents[1] / "data" / "keras" / "more_layer_references.npz"
REFERENCES = np.load(DATA)
INDEX = json.loads(str(REFERENCES["cases"]))


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
    """The case's layer built in lamina, as the script built it in Keras."""
    L, kwargs, options = lamina.layers, case["kwargs"], case["options"]
    if "cells" in options:
        return L.RNN(L.StackedRNNCells([getattr(L, name)(**cell_kwargs)
                                        for name, cell_kwargs in kwargs["cells"]]),
                     **kwargs.get("rnn", {}))
    if "wrap" in options:
        inner_name, inner_kwargs = kwargs["layer"]
        rest = {k: v for k, v in kwargs.items() if k != "layer"}
        return getattr(L, case["class_name"])(getattr(L, inner_name)(**inner_kwargs), **rest)
    return getattr(L, case["class_name"])(**kwargs)


def check_more_against_keras(case):
    """``case`` rebuilt in lamina gives Keras' weight names, shapes and output; returns
    the layer."""
    layer = make_case_layer(case)
    xs = case_arrays(case, "x")
    inputs = xs[0] if len(xs) == 1 else xs
    weights = case_arrays(case, "w")
    layer.build(xs[0].shape if len(xs) == 1 else [x.shape for x in xs])
    assert [w.name for w in layer.weights] == case["weight_names"]
    assert [tuple(w.shape) for w in layer.weights] == [w.shape for w in weights]
    layer.set_weights(weights)
    kwargs = {}
    if "mask" in case["options"]:
        masks = case_arrays(case, "mask")
        kwargs["mask"] = masks[0] if len(masks) == 1 else masks
    if "training" in case["options"]:
        kwargs["training"] = True
    got = layer(inputs, **kwargs).numpy()
    expected = REFERENCES[f"{case['id']}/output"]
    assert got.dtype == np.float32
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5,
                               err_msg=f"{case['id']}: lamina differs from Keras")
    for got_weight, keras_weight in zip(layer.get_weights(), case_arrays(case, "after")):
        np.testing.assert_allclose(got_weight, keras_weight, rtol=1e-5, atol=1e-5,
                                   err_msg=f"{case['id']}: weights after the call")
    return layer

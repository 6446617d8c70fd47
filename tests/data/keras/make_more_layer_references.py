"""Generate ``more_layer_references.npz`` and ``keras_einsum_dense.keras`` with real Keras 3
(run by hand, outputs committed; Keras is never a dependency of lamina)::

    KERAS_BACKEND=torch /path/to/keras-venv/bin/python \
        tests/data/keras/make_more_layer_references.py --lamina-python python3

* ``more_layer_references.npz``: for every case of ``CASES`` (a ``keras.layers`` class
  name, constructor keyword arguments lamina takes unchanged, input shapes, call options)
  the fixed inputs, the weights set into the layer (seeded, in ``layer.weights`` order),
  Keras' weight names and Keras' output (and, for ``"training"`` cases, the weights after
  the training call); ``cases`` holds the JSON index. The tests of EinsumDense,
  AdditiveAttention, RMSNormalization, StackedRNNCells and SpectralNormalization rebuild
  each case in lamina and compare.
* ``keras_einsum_dense.keras``: a functional model with three EinsumDense layers (GEMM,
  transposed-output and ellipsis equations) saved by Keras, its input and predictions in
  the npz under ``einsum_model/x`` and ``einsum_model/pred``.
* The other direction: lamina's Python (``--lamina-python``, run with ``--lamina-side``)
  loads ``keras_einsum_dense.keras`` and re-saves it as ``.keras`` in a temporary folder;
  Keras loads that file and predicts; the largest difference from Keras' own predictions
  is recorded in the index (``lamina_to_keras``).
"""

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from make_layer_references import (lamina_files, main,  # noqa: E402  (a sibling script)
                                   write_references)

# (id, class name, kwargs, input shapes, options); options: "mask" (boolean masks for
# every input, AdditiveAttention's [query_mask, value_mask]), "training" (call with
# training=True and record the weights afterwards), "cells" (kwargs holds a list of
# (cell class name, kwargs) wrapped as RNN(StackedRNNCells(cells))), "wrap" (kwargs holds
# {"layer": (class name, kwargs), **wrapper kwargs}).
CASES = [
    ("einsum_ab_bc", "EinsumDense", {"equation": "ab,bc->ac", "output_shape": 4,
                                     "bias_axes": "c"}, [(3, 5)], ()),
    ("einsum_abc_cd", "EinsumDense", {"equation": "abc,cd->abd", "output_shape": [None, 4],
                                      "activation": "relu", "bias_axes": "d"},
     [(2, 3, 5)], ()),
    ("einsum_abc_cde", "EinsumDense", {"equation": "abc,cde->abde",
                                       "output_shape": [3, 2, 4], "bias_axes": "de"},
     [(2, 3, 5)], ()),
    ("einsum_ellipsis", "EinsumDense", {"equation": "...b,bc->...c", "output_shape": 4,
                                        "bias_axes": "c", "activation": "gelu"},
     [(2, 3, 2, 5)], ()),
    ("einsum_transposed_out", "EinsumDense", {"equation": "abc,cd->adb",
                                              "output_shape": [4, 3], "bias_axes": "d"},
     [(2, 3, 5)], ()),
    ("einsum_two_contracted", "EinsumDense", {"equation": "abcd,cde->abe",
                                              "output_shape": [None, 3], "bias_axes": "e",
                                              "activation": "tanh"}, [(2, 3, 2, 4)], ()),
    ("einsum_shared_axis", "EinsumDense", {"equation": "abc,bcd->abd",
                                           "output_shape": [3, 4], "bias_axes": "bd"},
     [(2, 3, 5)], ()),
    ("einsum_right_ellipsis", "EinsumDense", {"equation": "ab...,bc->ac...",
                                              "output_shape": [4], "bias_axes": "c"},
     [(2, 5, 3)], ()),
    ("einsum_no_bias", "EinsumDense", {"equation": "abc,dc->abd", "output_shape": [None, 6]},
     [(2, 3, 5)], ()),
    ("additive", "AdditiveAttention", {}, [(2, 3, 4), (2, 5, 4)], ()),
    ("additive_masked", "AdditiveAttention", {}, [(2, 3, 4), (2, 5, 4)], ("mask",)),
    ("additive_unscaled_key", "AdditiveAttention", {"use_scale": False},
     [(2, 3, 4), (2, 5, 4), (2, 5, 4)], ()),
    ("rms_norm", "RMSNormalization", {}, [(2, 3, 5)], ()),
    ("rms_norm_axes", "RMSNormalization", {"axis": [2, 1], "epsilon": 0.1}, [(2, 3, 4)], ()),
    ("stacked_lstm_gru", "StackedRNNCells", {"cells": [["LSTMCell", {"units": 3}],
                                                       ["GRUCell", {"units": 2}]],
                                             "rnn": {"return_sequences": True}},
     [(2, 4, 5)], ("cells",)),
    ("stacked_masked_backwards", "StackedRNNCells",
     {"cells": [["SimpleRNNCell", {"units": 3}], ["LSTMCell", {"units": 2}],
                ["GRUCell", {"units": 2, "reset_after": False}]],
      "rnn": {"return_sequences": True, "go_backwards": True}}, [(2, 5, 4)],
     ("cells", "mask")),
    ("stacked_last_output_masked", "StackedRNNCells",
     {"cells": [["GRUCell", {"units": 3}], ["SimpleRNNCell", {"units": 2}]]}, [(2, 5, 4)],
     ("cells", "mask")),
    ("spectral_dense_training", "SpectralNormalization", {"layer": ["Dense", {"units": 3}]},
     [(2, 4)], ("wrap", "training")),
    ("spectral_conv_two_iterations", "SpectralNormalization",
     {"layer": ["Conv2D", {"filters": 2, "kernel_size": 3}], "power_iterations": 2},
     [(2, 5, 5, 3)], ("wrap", "training")),
    ("spectral_dense_inference", "SpectralNormalization", {"layer": ["Dense", {"units": 3}]},
     [(2, 4)], ("wrap",)),
]


def build_einsum_model(k):
    """The model of ``keras_einsum_dense.keras`` (same API in Keras and lamina)."""
    L = k.layers
    inputs = k.Input((3, 5), name="tokens")
    h = L.EinsumDense("abc,cd->abd", output_shape=(None, 6), bias_axes="d",
                      activation="relu", name="einsum_dense")(inputs)
    h = L.EinsumDense("abc,cde->abde", output_shape=(None, 2, 4), bias_axes="de",
                      name="einsum_dense_1")(h)
    h = L.EinsumDense("...de,dei->...i", output_shape=2, bias_axes="i",
                      name="einsum_dense_2")(h)
    return k.Model(inputs, h, name="einsum_model")


def lamina_side(folder):
    """Run with lamina: re-save Keras' EinsumDense model as lamina's .keras file."""
    import lamina

    model = lamina.load_model(os.path.join(HERE, "keras_einsum_dense.keras"))
    model.save(os.path.join(folder, "lamina_einsum_dense.keras"))


def keras_reads_lamina(keras, lamina_python, x, expected):
    """Max |difference| of Keras' predictions from lamina's file to ``expected``."""
    with lamina_files(os.path.abspath(__file__), lamina_python) as folder:
        loaded = keras.models.load_model(os.path.join(folder, "lamina_einsum_dense.keras"))
        return {"max_abs_diff_load_model":
                float(np.abs(loaded.predict(x, verbose=0) - expected).max())}


def make_layer(keras, class_name, kwargs, options):
    """A case's layer built with ``keras`` (or lamina, whose ``layers`` API is the same:
    the tests build the cases with this function)."""
    L = keras.layers
    if "cells" in options:
        return L.RNN(L.StackedRNNCells([getattr(L, name)(**cell_kwargs)
                                        for name, cell_kwargs in kwargs["cells"]]),
                     **kwargs.get("rnn", {}))
    if "wrap" in options:
        inner_name, inner_kwargs = kwargs["layer"]
        rest = {k: v for k, v in kwargs.items() if k != "layer"}
        return getattr(L, class_name)(getattr(L, inner_name)(**inner_kwargs), **rest)
    return getattr(L, class_name)(**kwargs)


def keras_side(lamina_python):
    import keras

    rng = np.random.default_rng(21)
    arrays, index = {}, []
    for name, class_name, kwargs, shapes, options in CASES:
        layer = make_layer(keras, class_name, kwargs, options)
        xs = [rng.uniform(-1.0, 1.0, size=shape).astype("float32") for shape in shapes]
        inputs = xs[0] if len(xs) == 1 else xs
        layer.build(shapes[0] if len(shapes) == 1 else shapes)
        weights = [rng.uniform(-1.0, 1.0, size=tuple(w.shape)).astype("float32")
                   for w in layer.weights]
        layer.set_weights(weights)
        call_kwargs = {}
        if "mask" in options:
            masks = [rng.uniform(size=shape[:2]) > 0.3 for shape in shapes]
            for i, mask in enumerate(masks):
                arrays[f"{name}/mask{i}"] = mask
            call_kwargs["mask"] = masks[0] if len(masks) == 1 else masks
        if "training" in options:
            call_kwargs["training"] = True
        output = keras.ops.convert_to_numpy(layer(inputs, **call_kwargs))
        for i, x in enumerate(xs):
            arrays[f"{name}/x{i}"] = x
        arrays[f"{name}/output"] = output
        for i, w in enumerate(weights):
            arrays[f"{name}/w{i}"] = w
        if "training" in options:
            for i, w in enumerate(layer.get_weights()):
                arrays[f"{name}/after{i}"] = w
        index.append({"id": name, "class_name": class_name, "kwargs": kwargs,
                      "options": list(options), "n_inputs": len(xs),
                      "weight_names": [w.name for w in layer.weights]})
    model = build_einsum_model(keras)
    model.set_weights([rng.uniform(-0.5, 0.5, size=tuple(w.shape)).astype("float32")
                       for w in model.weights])
    x = rng.uniform(-1.0, 1.0, size=(2, 3, 5)).astype("float32")
    arrays["einsum_model/x"] = x
    arrays["einsum_model/pred"] = model.predict(x, verbose=0)
    model.save(os.path.join(HERE, "keras_einsum_dense.keras"))
    write_references(keras, arrays, index,
                     keras_reads_lamina(keras, lamina_python, x, arrays["einsum_model/pred"]),
                     "more_layer_references.npz")
    print(f"{len(index)} layer cases and einsum_model written with Keras {keras.__version__}")


if __name__ == "__main__":
    main(lamina_side, keras_side, __doc__.splitlines()[0])

"""Writes ``result_types.json``: Keras 3.15's type promotion (``keras.backend.result_type``)
for every pair of dtypes and for a dtype with a Python ``int``/``float``/``bool``, the
dtypes of ``ops.add``/``ops.true_divide``/``ops.matmul`` on arrays of two dtypes, and the
output dtype of ``Dense`` on integer, boolean and float64 input.

Keras' torch and JAX backends narrow 64-bit results to 32 bits (``BIT64_TO_BIT32_DTYPE``),
its TensorFlow backend keeps ``int64``/``float64``; lamina keeps every 64-bit dtype, so the
table is the lattice without that narrowing (the mapping is emptied below).

Run with real Keras in a throwaway venv (never a lamina dependency):
``KERAS_BACKEND=torch python tests/data/keras/make_result_types.py``
"""

import json
import os

import keras
import numpy as np
from keras import ops
from keras.src.backend.common import dtypes

HERE = os.path.dirname(os.path.abspath(__file__))
NAMES = ["bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
         "bfloat16", "float16", "float32", "float64"]
PYTHON = {"int": int, "float": float, "pybool": bool}
TORCH_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32",
                "float64"]


def main():
    dtypes.BIT64_TO_BIT32_DTYPE.clear()
    pairs = {}
    for a in NAMES:
        for b in NAMES + list(PYTHON):
            try:
                pairs[f"{a},{b}"] = keras.backend.result_type(a, PYTHON.get(b, b))
            except ValueError:
                pairs[f"{a},{b}"] = "error"
    std = keras.backend.standardize_dtype
    ops_dtypes = {}
    for a in TORCH_DTYPES:
        for b in TORCH_DTYPES:
            x, y = np.ones((2, 2), a), np.ones((2, 2), b)
            ops_dtypes[f"add,{a},{b}"] = std(ops.add(x, y).dtype)
            ops_dtypes[f"true_divide,{a},{b}"] = std(ops.true_divide(x, y).dtype)
            if "bool" not in (a, b) and "float16" not in (a, b):
                ops_dtypes[f"matmul,{a},{b}"] = std(ops.matmul(x, y).dtype)
        ops_dtypes[f"add,{a},int"] = std(ops.add(np.ones(2, a), 2).dtype)
        ops_dtypes[f"add,{a},float"] = std(ops.add(np.ones(2, a), 1.5).dtype)
        ops_dtypes[f"multiply,{a},float"] = std(ops.multiply(np.ones(2, a), 1.5).dtype)
    dense = {name: std(keras.layers.Dense(2)(np.ones((2, 3), name)).dtype)
             for name in ("int64", "int32", "uint8", "bool", "float64", "float16")}
    with open(os.path.join(HERE, "result_types.json"), "w") as file:
        json.dump({"keras": keras.__version__, "result_type": pairs, "ops": ops_dtypes,
                   "dense": dense}, file, indent=0, sort_keys=True)


if __name__ == "__main__":
    main()

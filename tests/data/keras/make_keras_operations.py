"""Writes ``keras_operations.keras``, ``keras_operations.npz`` and
``lamina_operations_to_keras.json``: a functional model whose graph holds Keras 3's
operations (``x + y``, ``x * 2.0``, ``x[:, 1:]``, ``1.0 - x``, ``!=``, ``&``, ``|``, ``^``,
``~``, ``%``, ``//``: ``keras.src.ops.numpy`` classes ``Add``, ``Multiply``, ``GetItem``,
...) in both directions.

1. Keras -> lamina: Keras builds the model, sets seeded weights and saves it
   (``keras_operations.keras``, re-packed with deflate); inputs and predictions go to
   ``keras_operations.npz``.
2. lamina -> Keras: lamina (``--lamina-side``, run with lamina's Python) builds the same
   model with the same weights and saves ``lamina_operations.keras``; Keras loads it and
   predicts. ``lamina_operations_to_keras.json`` records the largest difference and the
   ``config.json`` Keras accepted.

Run with real Keras in a throwaway venv (never a lamina dependency)::

    KERAS_BACKEND=torch /tmp/kerasvenv/bin/python tests/data/keras/make_keras_operations.py \\
        --lamina-python python3
"""

import json
import os
import sys
import tempfile
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
X = [np.linspace(-1.5, 1.5, 12, dtype="float32").reshape(3, 4),
     np.linspace(1.0, -0.5, 12, dtype="float32").reshape(3, 4)]


def build(keras_module):
    """The model, in Keras or in lamina (same code)."""
    a = keras_module.Input((4,), name="a")
    b = keras_module.Input((4,), name="b")
    hidden = keras_module.layers.Dense(4, name="d1")(a)
    u = ((hidden + b) * 2.0)[:, 1:]
    v = 1.0 - u / 4
    mask = (u != 0.5) & (u > -1.0) | ~(u < 0.0) ^ (v > 1.0)
    rest = (u % 0.75) + (u // 0.5)
    out = keras_module.layers.Dense(2, name="d2")(v)
    model = keras_module.Model([a, b], [out, mask, rest])
    rng = np.random.default_rng(0)
    model.set_weights([rng.standard_normal(w.shape).astype("float32")
                       for w in model.get_weights()])
    return model


def predictions(model):
    return [np.asarray(p) for p in model.predict(X, verbose=0)]


def lamina_side(folder):
    """Run with lamina: save the model and its predictions into ``folder``."""
    import lamina

    model = build(lamina)
    model.save(os.path.join(folder, "lamina_operations.keras"))
    np.savez(os.path.join(folder, "lamina_operations.npz"), *predictions(model))


def keras_side(lamina_python):
    """Run with Keras: write Keras' file, then load lamina's."""
    import subprocess

    import keras
    from make_keras_files import deflate

    model = build(keras)
    path = os.path.join(HERE, "keras_operations.keras")
    model.save(path)
    deflate(path)
    expected = predictions(model)
    np.savez_compressed(os.path.join(HERE, "keras_operations.npz"), x0=X[0], x1=X[1],
                        **{f"pred{i}": p for i, p in enumerate(expected)})
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run([lamina_python, os.path.abspath(__file__), "--lamina-side", folder],
                       check=True)
        lamina_file = os.path.join(folder, "lamina_operations.keras")
        saved = np.load(os.path.join(folder, "lamina_operations.npz"))
        by_lamina = [saved[f"arr_{i}"] for i in range(len(saved.files))]
        by_keras = predictions(keras.models.load_model(lamina_file))
        with zipfile.ZipFile(lamina_file) as archive:
            config = json.loads(archive.read("config.json"))
    record = {"keras_version": keras.__version__,
              "max_abs_diff": float(max(np.max(np.abs(k.astype("float64") - m))
                                        for k, m in zip(by_keras, by_lamina))),
              "same_as_keras_model": float(max(np.max(np.abs(k.astype("float64") - e))
                                               for k, e in zip(by_keras, expected))),
              "config": config["config"]}
    with open(os.path.join(HERE, "lamina_operations_to_keras.json"), "w") as handle:
        json.dump(record, handle, indent=1, sort_keys=True)
        handle.write("\n")
    print(f"Keras reads lamina's file: max |diff| {record['max_abs_diff']:.2e}")


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    from make_keras_files import command_line
    command_line(__doc__, lamina_side, keras_side)

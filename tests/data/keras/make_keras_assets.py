"""Generate the ``.keras`` files with assets (vocabularies) of this folder with real Keras 3.

Keras is not a dependency of lamina or of its tests: this script is run by hand, with
Keras + TensorFlow (Keras' text and lookup layers need it) installed elsewhere, and its
outputs are committed::

    KERAS_BACKEND=tensorflow /work/kvenv/bin/python tests/data/keras/make_keras_assets.py \\
        --lamina-python python3     # with lamina importable (PYTHONPATH)

For every case of :data:`CASES` (TextVectorization in ``int`` / ``multi_hot`` / ``tf_idf``
modes, the last two followed by a Dense layer whose kernel needs the vocabulary size when
the model is rebuilt from config.json, StringLookup and IntegerLookup adapted, a
StringLookup with a given vocabulary):

1. Keras -> lamina: Keras builds and adapts the model and writes ``keras_assets_<name>.keras``
   (re-packed with deflate, every member byte for byte what Keras wrote); the queries,
   Keras' outputs and the archive's layout go to ``keras_assets.json``.
2. lamina -> Keras: the same script, run with lamina's Python (``--lamina-side``), builds
   the same models in lamina and saves them; Keras loads lamina's files and predicts.
   ``lamina_assets_to_keras.json`` records lamina's and Keras' outputs and the layout of
   the files Keras accepted (``test_keras_assets.py`` checks lamina still writes them).
"""

import io
import json
import os
import subprocess
import sys
import tempfile
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SENTENCES = ["The cat sat on the mat.", "The dog ate my homework!", "Cats, dogs & birds...",
             "the THE tHe", "Hello, World: it's 3.14 o'clock", "é café naïve"]
TEXT_QUERY = [["the cat ate"], ["unknown words here"], ["Dogs, CATS!"], ["café é"]]
TOKENS = [["a", "b", "a"], ["c", "a", "d"], ["b", "b", "é"]]
TOKEN_QUERY = [["a", "z", "é"], ["q", "b", "a"], ["", "c", "zz"]]
INTS = [[12, 36, 12], [1138, 42, 12], [7, 36, 36]]
INT_QUERY = [[12, 5, 42], [1000, 1001, 1002], [0, 36, 7]]


def _text(framework, width=1, **kwargs):
    layer = framework.layers.TextVectorization(**kwargs)
    layer.adapt(np.array(SENTENCES))
    return layer, framework.Input(shape=(width,), dtype="string"), TEXT_QUERY


def build(name, framework):
    """``(model, query)`` of case ``name`` built with ``framework`` (keras or lamina)."""
    L = framework.layers
    head = None
    if name == "text_int":
        layer, inputs, query = _text(framework, max_tokens=20, output_sequence_length=5)
    elif name == "text_multi_hot":
        layer, inputs, query = _text(framework, output_mode="multi_hot", ngrams=2)
        head = L.Dense(2, name="head")     # its kernel's shape needs the vocabulary size
    elif name == "text_tf_idf":
        layer, inputs, query = _text(framework, output_mode="tf_idf", max_tokens=12,
                                     pad_to_max_tokens=True)
        head = L.Dense(2, name="head")
    elif name == "string_lookup":
        layer = L.StringLookup(num_oov_indices=2, mask_token="")
        layer.adapt(np.array(TOKENS))
        inputs, query = framework.Input(shape=(3,), dtype="string"), TOKEN_QUERY
    elif name == "string_lookup_vocabulary":
        layer = L.StringLookup(vocabulary=["a", "b", "c", "é"], output_mode="multi_hot")
        inputs, query = framework.Input(shape=(3,), dtype="string"), TOKEN_QUERY
    elif name == "integer_lookup":
        layer = L.IntegerLookup(mask_token=0, output_mode="count")
        layer.adapt(np.array(INTS))
        inputs, query = framework.Input(shape=(3,), dtype="int64"), INT_QUERY
    else:
        raise ValueError(f"unknown case {name!r}")
    outputs = layer(inputs)
    if head is not None:
        outputs = head(outputs)
    model = framework.Model(inputs, outputs, name=name)
    if head is not None:
        depth = int(head.get_weights()[0].shape[0])
        kernel = np.linspace(-1.0, 1.0, 2 * depth, dtype="float32").reshape(depth, 2)
        head.set_weights([kernel, np.array([0.5, -0.25], dtype="float32")])
    return model, np.array(query, dtype=object if isinstance(query[0][0], str) else "int64")


CASES = ("text_int", "text_multi_hot", "text_tf_idf", "string_lookup",
         "string_lookup_vocabulary", "integer_lookup")


def _predict(model, query):
    value = model(query)
    return np.asarray(value.numpy() if hasattr(value, "numpy") else value).tolist()


# ---------------------------------------------------------------------------- layouts
def archive_layout(path):
    """What Keras reads from a ``.keras`` archive: the member names, every asset member's
    text, ``config.json`` and each ``vars`` group of ``model.weights.h5`` with its
    ``name`` and ``{key: shape}`` (numbered variables and named ones as ``idf_weights``)."""
    import h5py
    with zipfile.ZipFile(path) as archive:
        members = sorted(archive.namelist())
        assets = {m: archive.read(m).decode("utf-8") for m in members
                  if m.startswith("assets/")}
        config = json.loads(archive.read("config.json"))
        weights = archive.read("model.weights.h5")
    groups = []
    with h5py.File(io.BytesIO(weights), "r") as handle:
        def visit(name, obj):
            if name.split("/")[-1] == "vars" and isinstance(obj, h5py.Group):
                label = obj.attrs.get("name", "")
                groups.append([name, label.decode() if isinstance(label, bytes) else
                               str(label), {k: list(obj[k].shape) for k in obj}])
        handle.visititems(visit)
    return {"members": members, "assets": assets, "config": config,
            "weights": sorted(groups)}


# ---------------------------------------------------------------------------- sides
def lamina_side(folder):
    """Run with lamina: write lamina's files and outputs into ``folder``."""
    import lamina
    outputs = {}
    for name in CASES:
        model, query = build(name, lamina)
        model.save(os.path.join(folder, f"lamina_{name}.keras"))
        outputs[name] = _predict(model, query)
    with open(os.path.join(folder, "lamina_outputs.json"), "w") as handle:
        json.dump(outputs, handle)


def keras_side(lamina_python):
    import keras
    from make_keras_files import deflate   # a sibling script (HERE is on sys.path)
    reference = {"keras_version": keras.__version__, "cases": {}}
    for name in CASES:
        model, query = build(name, keras)
        path = os.path.join(HERE, f"keras_assets_{name}.keras")
        model.save(path)
        deflate(path)
        expected = _predict(model, query)
        assert _predict(keras.saving.load_model(path), query) == expected, name
        reference["cases"][name] = {"query": query.tolist(), "output": expected,
                                    "layout": archive_layout(path)}
    _write_json("keras_assets.json", reference)

    record = {"keras_version": keras.__version__, "backend": keras.backend.backend(),
              "cases": {}}
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run([lamina_python, os.path.abspath(__file__), "--lamina-side", folder],
                       check=True)
        with open(os.path.join(folder, "lamina_outputs.json")) as handle:
            lamina_outputs = json.load(handle)
        for name in CASES:
            path = os.path.join(folder, f"lamina_{name}.keras")
            _, query = build(name, keras)
            by_keras = _predict(keras.saving.load_model(path), query)
            layout = archive_layout(path)
            record["cases"][name] = {
                "lamina_output": lamina_outputs[name], "keras_load_model_output": by_keras,
                "max_abs_diff": float(np.max(np.abs(np.subtract(by_keras,
                                                                lamina_outputs[name])))),
                "members": layout["members"], "assets": layout["assets"],
                "weights": layout["weights"],
                "same_members_as_keras": layout["members"] ==
                reference["cases"][name]["layout"]["members"]}
            print(f"{name}: Keras reads lamina's file, max |diff| "
                  f"{record['cases'][name]['max_abs_diff']:.2e}")
    _write_json("lamina_assets_to_keras.json", record)


def _write_json(name, value):
    with open(os.path.join(HERE, name), "w", encoding="utf-8") as handle:
        json.dump(value, handle, indent=1, sort_keys=True, ensure_ascii=False)
        handle.write("\n")


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    from make_keras_files import command_line   # a sibling script
    command_line(__doc__, lamina_side, keras_side)

"""Generate the Keras interoperability files of this folder with real Keras 3.

Keras is not a dependency of lamina or of its tests: this script is run by hand, in a
throwaway environment, and its outputs are committed::

    python3 -m venv /tmp/kerasvenv
    /tmp/kerasvenv/bin/pip install torch==2.13.0 keras h5py numpy   # CPU torch
    KERAS_BACKEND=torch /tmp/kerasvenv/bin/python tests/data/keras/make_keras_files.py \\
        --lamina-python python3

Both directions, for every model of ``zoo.py`` (Dense, Conv1D/2D, pooling,
BatchNormalization, LayerNormalization, Embedding, SimpleRNN, LSTM, GRU, Add/Concatenate in
a two-input two-output functional model, MultiHeadAttention, a nested model with a
shared layer):

1. Keras -> lamina: Keras builds the model, sets seeded weights, trains one Adam step and
   writes ``keras_<name>.h5`` (``model.save``), ``keras_<name>.weights.h5``
   (``save_weights``) and ``keras_<name>.keras`` (``model.save``, Keras 3's zip; re-packed
   with deflate to keep this folder small: every member is byte for byte what Keras wrote,
   and Keras reloads the re-packed file to the same predictions); inputs and Keras'
   predictions go to ``keras_predictions.npz``.
2. lamina -> Keras: the same script, run with lamina's Python (``--lamina-side``), builds
   the same models in lamina and writes ``.h5`` / ``.weights.h5`` files into a temporary
   folder; Keras loads them (``keras.models.load_model`` and ``load_weights`` into a Keras
   model) and predicts. ``lamina_to_keras.json`` records, per model, lamina's and Keras'
   predictions, their largest difference, and the model config and weight layouts of
   the files Keras accepted (``test_keras_interop.py`` checks lamina still writes those);
   for ``lamina_<name>.keras`` the same under ``keras_zip``: Keras' ``load_model``
   predictions, the archive's members, its ``config.json`` and its weights layout.
"""

import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
import zipfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import zoo  # noqa: E402  (a sibling module, importable once HERE is on the path)


def _single(values):
    return values[0] if len(values) == 1 else values


def _as_list(prediction):
    return [np.asarray(p) for p in prediction] if isinstance(prediction, list) \
        else [np.asarray(prediction)]


def _prepare(model, name, framework):
    values = zoo.randomize(model, [(tuple(w.shape), str(w.path)) for w in model.weights])
    model.set_weights(values)
    model.compile(**zoo.compile_args(name, framework))
    model.train_on_batch(_single(zoo.inputs(name)), _single(zoo.targets(name)))
    return model


# ---------------------------------------------------------------------------- layouts
def h5_layout(path):
    """The structure Keras reads from a file: root attributes, ``layer_names``, each
    layer's ``weight_names`` with dataset shapes, optimizer names; or for the weights
    layout every ``vars`` group with its ``name`` and dataset shapes."""
    import h5py

    def text(value):
        return value.decode("utf-8") if isinstance(value, bytes) else str(value)

    def names(obj, key):
        return [text(n) for n in obj.attrs.get(key, [])]

    with h5py.File(path, "r") as handle:
        if "model_weights" in handle or "layer_names" in handle.attrs:
            group = handle["model_weights"] if "model_weights" in handle else handle
            layers = []
            for layer in names(group, "layer_names"):
                weights = names(group[layer], "weight_names")
                layers.append([layer, [[w, list(group[layer][w].shape)] for w in weights]])
            result = {"layers": layers}
            if "optimizer_weights" in handle:
                result["optimizer"] = names(handle["optimizer_weights"], "weight_names")
            for key in ("model_config", "training_config"):
                if key in handle.attrs:
                    result[key] = json.loads(text(handle.attrs[key]))
            return result
        groups = []

        def visit(name, obj):
            if name.endswith("vars") and isinstance(obj, h5py.Group):
                groups.append([name, text(obj.attrs.get("name", "")),
                               [list(obj[k].shape) for k in sorted(obj, key=int)]])

        handle.visititems(visit)
        return {"vars": sorted(groups)}


def keras_zip_layout(path):
    """What Keras reads from a ``.keras`` archive: its member names, ``config.json`` and
    the layout of ``model.weights.h5`` (``metadata.json`` holds only a date and the
    writer's own entries, which Keras never reads)."""
    with zipfile.ZipFile(path) as archive:
        return {"members": sorted(archive.namelist()),
                "config": json.loads(archive.read("config.json")),
                "weights": h5_layout(io.BytesIO(archive.read("model.weights.h5")))}


def deflate(path):
    """Re-pack a zip archive with deflate, every member's bytes unchanged."""
    with zipfile.ZipFile(path) as archive:
        members = [(info.filename, archive.read(info)) for info in archive.infolist()]
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in members:
            archive.writestr(name, data)


# ---------------------------------------------------------------------------- lamina side
def lamina_side(folder):
    """Run with lamina: write lamina's files and predictions into ``folder``."""
    import lamina

    lamina.utils.set_random_seed(0)
    predictions = {}
    for name in zoo.NAMES:
        model = _prepare(zoo.build(name, lamina), name, lamina)
        model.save(os.path.join(folder, f"lamina_{name}.h5"))
        model.save(os.path.join(folder, f"lamina_{name}.keras"))
        model.save_weights(os.path.join(folder, f"lamina_{name}.weights.h5"))
        model.save_weights(os.path.join(folder, f"lamina_{name}_legacy_weights.h5"))
        for index, value in enumerate(_as_list(model.predict(_single(zoo.inputs(name)),
                                                             verbose=0))):
            predictions[f"{name}/pred{index}"] = value
    np.savez(os.path.join(folder, "lamina_predictions.npz"), **predictions)


# ---------------------------------------------------------------------------- keras side
def keras_side(lamina_python):
    import keras

    keras.utils.set_random_seed(0)
    arrays = {}
    for name in zoo.NAMES:
        model = _prepare(zoo.build(name, keras), name, keras)
        # The .keras file first: Keras 3.15's legacy .h5 save drops the optimizer from the
        # model's compile config, so a .keras saved after it would have none.
        archive = os.path.join(HERE, f"keras_{name}.keras")
        model.save(archive)
        deflate(archive)
        model.save(os.path.join(HERE, f"keras_{name}.h5"))
        model.save_weights(os.path.join(HERE, f"keras_{name}.weights.h5"))
        x = zoo.inputs(name)
        for index, value in enumerate(x):
            arrays[f"{name}/x{index}"] = value
        predictions = _as_list(model.predict(_single(x), verbose=0))
        for index, value in enumerate(predictions):
            arrays[f"{name}/pred{index}"] = value
        reloaded = keras.models.load_model(archive)
        assert all(np.array_equal(a, b) for a, b in zip(
            predictions, _as_list(reloaded.predict(_single(x), verbose=0)))), name
        assert type(reloaded.optimizer).__name__ == "Adam", name
    np.savez_compressed(os.path.join(HERE, "keras_predictions.npz"), **arrays)

    record = {"keras_version": keras.__version__, "backend": keras.backend.backend(),
              "models": {}}
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run([lamina_python, os.path.abspath(__file__), "--lamina-side", folder],
                       check=True)
        lamina_predictions = np.load(os.path.join(folder, "lamina_predictions.npz"))
        for name in zoo.NAMES:
            x = _single(zoo.inputs(name))
            count = sum(1 for key in lamina_predictions.files
                        if key.startswith(f"{name}/pred"))
            expected = [lamina_predictions[f"{name}/pred{i}"] for i in range(count)]
            full = os.path.join(folder, f"lamina_{name}.h5")
            weights = os.path.join(folder, f"lamina_{name}.weights.h5")
            legacy = os.path.join(folder, f"lamina_{name}_legacy_weights.h5")
            loaded = keras.models.load_model(full)
            by_load_model = _as_list(loaded.predict(x, verbose=0))
            target = zoo.build(name, keras)
            target.load_weights(weights)
            by_weights = _as_list(target.predict(x, verbose=0))
            target = zoo.build(name, keras)
            target.load_weights(legacy)
            by_legacy = _as_list(target.predict(x, verbose=0))

            zipped = os.path.join(folder, f"lamina_{name}.keras")
            loaded_zip = keras.models.load_model(zipped)
            by_zip = _as_list(loaded_zip.predict(x, verbose=0))

            def diff(got):
                return float(max(np.max(np.abs(g - e)) for g, e in zip(got, expected)))

            record["models"][name] = {
                "lamina_predictions": [e.tolist() for e in expected],
                "keras_load_model_predictions": [p.tolist() for p in by_load_model],
                "max_abs_diff_load_model": diff(by_load_model),
                "max_abs_diff_load_weights": diff(by_weights),
                "max_abs_diff_load_legacy_weights": diff(by_legacy),
                "keras_optimizer_iterations": int(np.asarray(
                    keras.ops.convert_to_numpy(loaded.optimizer.iterations))),
                "full_model_layout": h5_layout(full),
                "weights_layout": h5_layout(weights),
                "legacy_weights_layout": h5_layout(legacy),
                "keras_zip": {
                    "max_abs_diff_load_model": diff(by_zip),
                    "keras_optimizer": type(loaded_zip.optimizer).__name__,
                    "keras_optimizer_iterations": int(np.asarray(
                        keras.ops.convert_to_numpy(loaded_zip.optimizer.iterations))),
                    "layout": keras_zip_layout(zipped)},
            }
            print(f"{name}: Keras reads lamina's files, max |diff| "
                  f"{record['models'][name]['max_abs_diff_load_model']:.2e} (load_model), "
                  f"{record['models'][name]['max_abs_diff_load_weights']:.2e} "
                  "(load_weights), "
                  f"{record['models'][name]['keras_zip']['max_abs_diff_load_model']:.2e} "
                  "(.keras)")
    with open(os.path.join(HERE, "lamina_to_keras.json"), "w") as handle:
        json.dump(record, handle, indent=1, sort_keys=True)
        handle.write("\n")


def command_line(doc, lamina_part, keras_part):
    """Run a two-sided script: ``--lamina-side FOLDER`` (with lamina's Python) runs
    ``lamina_part(FOLDER)``, otherwise ``keras_part(lamina_python)``."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--lamina-side", metavar="FOLDER",
                        help="(internal) run with lamina's Python: write lamina's files")
    parser.add_argument("--lamina-python", default="python3",
                        help="the Python interpreter that has lamina installed")
    args = parser.parse_args()
    if args.lamina_side:
        lamina_part(args.lamina_side)
    else:
        keras_part(args.lamina_python)


if __name__ == "__main__":
    command_line(__doc__, lamina_side, keras_side)

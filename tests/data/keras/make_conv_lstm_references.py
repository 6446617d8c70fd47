"""Generate ``conv_lstm_references.npz`` and ``keras_conv_lstm2d.keras`` with real Keras 3
(run by hand, outputs committed; Keras is never a dependency of lamina)::

    KERAS_BACKEND=torch /path/to/keras-venv/bin/python \\
        tests/data/keras/make_conv_lstm_references.py --lamina-python python3

* For every case of ``CASES`` (a ConvLSTM class name and constructor keyword arguments
  lamina takes unchanged): a fixed input ``<id>/x``, seeded weights ``<id>/w0..w2`` (in
  ``layer.weights`` order) and Keras' outputs ``<id>/y0..`` (the output, then the states
  with ``return_state``); ``cases`` holds the JSON index with Keras' weight paths and
  config keys.
* ``keras_conv_lstm2d.keras``: a small model with two ConvLSTM2D layers and an
  AdaptiveAveragePooling2D saved by Keras,
  with its input and predictions under ``model/x`` and ``model/pred``.
* The other direction: lamina (``--lamina-python``, with this script's ``--lamina-side``)
  loads the ``.keras`` file and saves it again in a temporary folder; Keras loads that and
  predicts; the largest difference from Keras' own predictions is ``lamina_to_keras``.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

CASES = [  # (id, class name, kwargs, input shape)
    ("same_sequences_state", "ConvLSTM2D",
     {"filters": 3, "kernel_size": 3, "padding": "same", "return_sequences": True,
      "return_state": True}, (2, 4, 5, 6, 2)),
    ("valid_strides_last", "ConvLSTM2D",
     {"filters": 2, "kernel_size": [3, 2], "strides": [2, 1]}, (2, 3, 7, 5, 3)),
    ("channels_first_backwards", "ConvLSTM2D",
     {"filters": 2, "kernel_size": 2, "data_format": "channels_first", "go_backwards": True,
      "return_sequences": True, "activation": "relu", "recurrent_activation": "hard_sigmoid"},
     (2, 3, 3, 4, 5)),
    ("dilated_state_no_bias", "ConvLSTM2D",
     {"filters": 2, "kernel_size": 2, "dilation_rate": 2, "use_bias": False,
      "return_state": True}, (1, 3, 6, 6, 1)),
    ("conv_lstm1d", "ConvLSTM1D",
     {"filters": 3, "kernel_size": 3, "padding": "same", "return_sequences": True},
     (2, 4, 6, 2)),
    ("conv_lstm3d", "ConvLSTM3D",
     {"filters": 2, "kernel_size": 2, "return_state": True}, (1, 3, 3, 4, 3, 2)),
]


def lamina_side(keras_file, out_file):
    """Load Keras' file in lamina and save it again (run under lamina's Python)."""
    import lamina
    lamina.saving.load_model(keras_file).save(out_file)


def main():
    import keras

    parser = argparse.ArgumentParser()
    parser.add_argument("--lamina-python", default="python3")
    args = parser.parse_args()
    rng = np.random.default_rng(2026)
    arrays, index = {}, []
    for case_id, class_name, kwargs, shape in CASES:
        layer = getattr(keras.layers, class_name)(**kwargs)
        x = rng.uniform(-1, 1, size=shape).astype("float32")
        layer.build(x.shape)
        weights = [rng.normal(0, 0.4, size=w.shape).astype("float32") for w in layer.weights]
        layer.set_weights(weights)
        outputs = layer(x)
        outputs = outputs if isinstance(outputs, (list, tuple)) else [outputs]
        arrays[f"{case_id}/x"] = x
        for i, w in enumerate(weights):
            arrays[f"{case_id}/w{i}"] = w
        for i, y in enumerate(outputs):
            arrays[f"{case_id}/y{i}"] = keras.ops.convert_to_numpy(y)
        index.append({"id": case_id, "class_name": class_name, "kwargs": kwargs,
                      "weight_paths": [w.path for w in layer.weights],
                      "outputs": len(outputs), "config_keys": sorted(layer.get_config())})

    keras.utils.set_random_seed(3)
    inputs = keras.Input((3, 6, 6, 1))
    h = keras.layers.ConvLSTM2D(4, 3, padding="same", return_sequences=True)(inputs)
    h = keras.layers.ConvLSTM2D(2, 2, strides=2, go_backwards=True)(h)
    h = keras.layers.AdaptiveAveragePooling2D((2, 3))(h)
    outputs = keras.layers.Dense(1)(keras.layers.Flatten()(h))
    model = keras.Model(inputs, outputs)
    model.compile("adam", "mse")
    x = rng.uniform(-1, 1, size=(4, 3, 6, 6, 1)).astype("float32")
    model.fit(x, rng.normal(size=(4, 1)), epochs=2, verbose=0)   # weights off their init
    keras_file = os.path.join(HERE, "keras_conv_lstm2d.keras")
    model.save(keras_file)
    arrays["model/x"], arrays["model/pred"] = x, model.predict(x, verbose=0)

    with tempfile.TemporaryDirectory() as folder:
        resaved = os.path.join(folder, "lamina.keras")
        subprocess.run([args.lamina_python, os.path.abspath(__file__), "--lamina-side",
                        keras_file, resaved], check=True)
        back = keras.saving.load_model(resaved).predict(x, verbose=0)
    lamina_to_keras = float(np.abs(back - arrays["model/pred"]).max())
    arrays["cases"] = np.array(json.dumps({"cases": index, "lamina_to_keras": lamina_to_keras,
                                           "keras": keras.__version__}))
    np.savez_compressed(os.path.join(HERE, "conv_lstm_references.npz"), **arrays)
    print("lamina -> keras max difference:", lamina_to_keras)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--lamina-side"]:
        lamina_side(*sys.argv[2:4])
    else:
        main()

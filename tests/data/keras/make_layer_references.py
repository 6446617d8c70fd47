"""Generate ``layer_references.npz`` and ``keras_layers3d.h5`` / ``.weights.h5`` with real
Keras 3 (run by hand, outputs committed; Keras is never a dependency of lamina)::

    KERAS_BACKEND=torch /path/to/keras-venv/bin/python tests/data/keras/make_layer_references.py \
        --lamina-python python3

* ``layer_references.npz``: for every case of ``CASES`` (a layer class name as exported
  by ``keras.layers``, aliases included, and constructor keyword arguments that lamina
  takes unchanged), a fixed input, the weights set into the layer (seeded, in
  ``layer.weights`` order), Keras' weight names and Keras' output; ``cases`` holds the
  JSON index. ``tests/layers/test_keras_layer_references.py`` rebuilds each layer in lamina
  with the same arguments and weights and compares.
* ``keras_layers3d.h5`` / ``keras_layers3d.weights.h5``: a model with Conv3D,
  GroupNormalization, PReLU, MaxPool3D, Conv3DTranspose, LeakyReLU, GlobalAvgPool3D and
  Softmax saved by Keras (``model.save`` / ``save_weights``), with its input and
  predictions in the npz under ``model3d/x`` and ``model3d/pred``.
* The other direction: lamina's Python (``--lamina-python``, run with ``--lamina-side``)
  loads ``keras_layers3d.h5`` and re-saves it as ``.h5`` and ``.weights.h5`` in a temporary
  folder; Keras loads both and predicts; the largest differences from Keras' own
  predictions are recorded in the index (``lamina_to_keras``).
"""

import argparse
import contextlib
import json
import os
import subprocess
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CF = {"data_format": "channels_first"}

# (id, class name, kwargs, input shape, input scale, call extras)
CASES = [
    ("relu", "ReLU", {}, (2, 7), 2.0),
    ("relu_all_options", "ReLU", {"max_value": 1.5, "negative_slope": 0.2,
                                  "threshold": 0.3}, (2, 9), 2.0),
    ("relu6_leaky", "ReLU", {"max_value": 6.0, "negative_slope": 0.1}, (2, 9), 8.0),
    ("relu_threshold", "ReLU", {"threshold": 0.5}, (2, 9), 2.0),
    ("leaky_relu", "LeakyReLU", {}, (2, 7), 1.0),
    ("leaky_relu_slope", "LeakyReLU", {"negative_slope": 0.05}, (2, 7), 1.0),
    ("prelu", "PReLU", {}, (2, 3, 4), 1.0),
    ("prelu_shared", "PReLU", {"shared_axes": [1, 2]}, (2, 3, 4, 5), 1.0),
    ("elu", "ELU", {"alpha": 0.7}, (2, 7), 2.0),
    ("softmax", "Softmax", {}, (2, 3, 5), 3.0),
    ("softmax_axes", "Softmax", {"axis": [1, 2]}, (2, 3, 4), 3.0),
    ("softmax_mask", "Softmax", {}, (2, 3, 5), 3.0, "mask"),
    ("group_norm", "GroupNormalization", {"groups": 2}, (2, 4, 5, 6), 2.0),
    ("group_norm_axis1", "GroupNormalization", {"groups": 3, "axis": 1, "epsilon": 0.01},
     (2, 6, 5), 2.0),
    ("group_norm_instance", "GroupNormalization", {"groups": -1, "center": False},
     (2, 5, 4), 2.0),
    ("unit_norm", "UnitNormalization", {}, (2, 3, 4), 1.0),
    ("unit_norm_axes", "UnitNormalization", {"axis": [1, 2]}, (2, 3, 4), 1.0),
    ("conv3d", "Conv3D", {"filters": 3, "kernel_size": 2, "strides": [1, 2, 1],
                          "padding": "same"}, (2, 4, 5, 4, 2), 1.0),
    ("convolution3d_cf", "Convolution3D", {"filters": 3, "kernel_size": [2, 3, 2],
                                           "dilation_rate": [1, 1, 2], "activation": "relu",
                                           **CF}, (2, 2, 5, 6, 5), 1.0),
    ("conv2d_cf", "Conv2D", {"filters": 4, "kernel_size": 3, "strides": 2,
                             "padding": "same", **CF}, (2, 3, 7, 6), 1.0),
    ("conv1d_cf_causal", "Conv1D", {"filters": 2, "kernel_size": 3, "padding": "causal",
                                    **CF}, (2, 3, 8), 1.0),
    ("conv1d_transpose_same", "Conv1DTranspose", {"filters": 3, "kernel_size": 3,
                                                  "strides": 2, "padding": "same"},
     (2, 5, 2), 1.0),
    ("conv1d_transpose_valid", "Convolution1DTranspose", {"filters": 2, "kernel_size": 3,
                                                          "strides": 2}, (2, 4, 3), 1.0),
    ("conv2d_transpose_cf", "Conv2DTranspose", {"filters": 2, "kernel_size": 3,
                                                "strides": 2, "padding": "same", **CF},
     (2, 3, 4, 3), 1.0),
    ("conv3d_transpose", "Conv3DTranspose", {"filters": 2, "kernel_size": [2, 3, 2],
                                             "strides": [2, 1, 2]}, (1, 3, 3, 2, 2), 1.0),
    ("depthwise1d", "DepthwiseConv1D", {"kernel_size": 3, "depth_multiplier": 2,
                                        "padding": "same"}, (2, 6, 3), 1.0),
    ("depthwise2d_cf", "DepthwiseConv2D", {"kernel_size": 2, "strides": 2, **CF},
     (2, 3, 5, 4), 1.0),
    ("separable1d", "SeparableConv1D", {"filters": 4, "kernel_size": 3,
                                        "depth_multiplier": 2, "strides": 2},
     (2, 7, 3), 1.0),
    ("separable2d_cf", "SeparableConvolution2D", {"filters": 3, "kernel_size": 2,
                                                  "padding": "same", **CF},
     (2, 2, 4, 5), 1.0),
    ("maxpool3d", "MaxPool3D", {}, (2, 4, 5, 4, 2), 1.0),
    # symmetric "same" padding only: for an odd total the torch backend pads average
    # pooling by replicating the edge, where TensorFlow and JAX (and lamina) leave the
    # padded cells out of the mean
    ("avgpool3d_same", "AveragePooling3D", {"pool_size": [3, 3, 1], "strides": 1,
                                            "padding": "same"}, (2, 3, 4, 3, 2), 1.0),
    ("maxpool2d_cf", "MaxPooling2D", {"pool_size": 3, "strides": 2, "padding": "same",
                                      **CF}, (2, 3, 7, 6), 1.0),
    ("avgpool1d_cf", "AvgPool1D", {"pool_size": 2, **CF}, (2, 3, 7), 1.0),
    ("global_max3d", "GlobalMaxPool3D", {}, (2, 3, 4, 2, 3), 1.0),
    ("global_avg3d_cf_keepdims", "GlobalAveragePooling3D", {"keepdims": True, **CF},
     (2, 3, 4, 2, 3), 1.0),
    ("global_avg1d_cf", "GlobalAvgPool1D", CF, (2, 3, 5), 1.0),
    ("global_max2d_cf", "GlobalMaxPooling2D", CF, (2, 3, 4, 5), 1.0),
    ("zero_padding3d", "ZeroPadding3D", {"padding": [[1, 0], [0, 2], [1, 1]]},
     (2, 2, 3, 2, 2), 1.0),
    ("zero_padding2d_cf", "ZeroPadding2D", {"padding": [1, 2], **CF}, (2, 3, 2, 3), 1.0),
    ("zero_padding1d_cf", "ZeroPadding1D", {"padding": [1, 2], **CF}, (2, 3, 4), 1.0),
    ("cropping3d", "Cropping3D", {"cropping": [[1, 0], [0, 1], [1, 1]]}, (2, 3, 4, 5, 2),
     1.0),
    ("cropping2d_cf", "Cropping2D", {"cropping": [[1, 0], [0, 2]], **CF}, (2, 3, 4, 5),
     1.0),
    ("up_sampling3d", "UpSampling3D", {"size": [2, 1, 3]}, (2, 2, 3, 2, 2), 1.0),
    ("up_sampling3d_cf", "UpSampling3D", {"size": 2, **CF}, (2, 2, 2, 3, 2), 1.0),
    ("up_sampling2d_cf_bilinear", "UpSampling2D", {"size": [2, 3],
                                                   "interpolation": "bilinear", **CF},
     (2, 2, 3, 4), 1.0),
    ("flatten_cf", "Flatten", CF, (2, 3, 4, 2), 1.0),
]


def build_model3d(k):
    """The model of ``keras_layers3d.h5`` (same API in Keras and lamina)."""
    L = k.layers
    return k.Sequential([
        k.Input((6, 6, 6, 2), name="volume"),
        L.Conv3D(4, 3, padding="same", name="conv3d"),
        L.GroupNormalization(2, name="group_normalization"),
        L.PReLU(shared_axes=[1, 2, 3], name="p_re_lu"),
        L.MaxPool3D(2, name="max_pooling3d"),
        L.Conv3DTranspose(3, 2, strides=2, name="conv3d_transpose"),
        L.LeakyReLU(0.1, name="leaky_re_lu"),
        L.GlobalAvgPool3D(name="global_average_pooling3d"),
        L.Dense(3, name="dense"),
        L.Softmax(name="softmax"),
    ], name="model3d")


def lamina_side(folder):
    """Run with lamina: re-save Keras' model3d file as lamina's .h5 and .weights.h5."""
    import lamina

    model = lamina.load_model(os.path.join(HERE, "keras_layers3d.h5"))
    model.save(os.path.join(folder, "lamina_layers3d.h5"))
    model.save_weights(os.path.join(folder, "lamina_layers3d.weights.h5"))


@contextlib.contextmanager
def lamina_files(script, lamina_python):
    """A temporary folder holding the files that ``script``'s lamina side wrote (run
    with lamina's Python, ``--lamina-side FOLDER``)."""
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run([lamina_python, script, "--lamina-side", folder], check=True)
        yield folder


def keras_reads_lamina(keras, lamina_python, x, expected):
    """Max |difference| of Keras' predictions from lamina's files to ``expected``."""
    with lamina_files(os.path.abspath(__file__), lamina_python) as folder:
        loaded = keras.models.load_model(os.path.join(folder, "lamina_layers3d.h5"))
        target = build_model3d(keras)
        target.load_weights(os.path.join(folder, "lamina_layers3d.weights.h5"))
        return {"max_abs_diff_load_model":
                float(np.abs(loaded.predict(x, verbose=0) - expected).max()),
                "max_abs_diff_load_weights":
                float(np.abs(target.predict(x, verbose=0) - expected).max())}


def keras_side(lamina_python):
    import keras

    rng = np.random.default_rng(14)
    arrays, index = {}, []
    for case in CASES:
        name, class_name, kwargs, shape, scale = case[:5]
        layer = getattr(keras.layers, class_name)(**kwargs)
        x = (rng.uniform(-1.0, 1.0, size=shape) * scale).astype("float32")
        layer.build(shape)
        weights = [rng.uniform(-1.0, 1.0, size=tuple(w.shape)).astype("float32")
                   for w in layer.weights]
        layer.set_weights(weights)
        call_kwargs = {}
        if "mask" in case[5:]:
            mask = rng.uniform(size=shape) > 0.4
            mask[0, 0] = False  # a fully masked row: Keras outputs zeros there
            arrays[f"{name}/mask"] = mask
            call_kwargs["mask"] = mask
        output = keras.ops.convert_to_numpy(layer(x, **call_kwargs))
        arrays[f"{name}/x"] = x
        arrays[f"{name}/output"] = output
        for i, w in enumerate(weights):
            arrays[f"{name}/w{i}"] = w
        index.append({"id": name, "class_name": class_name, "kwargs": kwargs,
                      "weight_names": [w.name for w in layer.weights],
                      "mask": "mask" in case[5:]})
    model = build_model3d(keras)
    model.set_weights([rng.uniform(-0.5, 0.5, size=tuple(w.shape)).astype("float32")
                       for w in model.weights])
    x = rng.uniform(-1.0, 1.0, size=(2, 6, 6, 6, 2)).astype("float32")
    arrays["model3d/x"] = x
    arrays["model3d/pred"] = model.predict(x, verbose=0)
    model.save(os.path.join(HERE, "keras_layers3d.h5"))
    model.save_weights(os.path.join(HERE, "keras_layers3d.weights.h5"))
    write_references(keras, arrays, index,
                     keras_reads_lamina(keras, lamina_python, x, arrays["model3d/pred"]),
                     "layer_references.npz")
    print(f"{len(index)} layer cases and model3d written with Keras {keras.__version__}")


def write_references(keras, arrays, index, lamina_to_keras, filename):
    """Save ``arrays`` and the JSON index (``cases``: the Keras version and backend,
    ``index``, ``lamina_to_keras``) as ``filename`` in this folder."""
    record = {"keras_version": keras.__version__, "backend": keras.backend.backend(),
              "cases": index, "lamina_to_keras": lamina_to_keras}
    print(f"Keras reads lamina's files: {lamina_to_keras}")
    arrays["cases"] = np.array(json.dumps(record))
    np.savez_compressed(os.path.join(HERE, filename), **arrays)


def main(run_lamina_side=None, run_keras_side=None, description=None):
    """The command line (also that of the other generator scripts of this folder, which
    pass their own two sides and docstring line)."""
    parser = argparse.ArgumentParser(description=description or __doc__.splitlines()[0])
    parser.add_argument("--lamina-side", metavar="FOLDER",
                        help="(internal) run with lamina's Python: write lamina's files")
    parser.add_argument("--lamina-python", default="python3",
                        help="the Python interpreter that can import lamina")
    args = parser.parse_args()
    if args.lamina_side:
        (run_lamina_side or lamina_side)(args.lamina_side)
    else:
        (run_keras_side or keras_side)(args.lamina_python)


if __name__ == "__main__":
    main()

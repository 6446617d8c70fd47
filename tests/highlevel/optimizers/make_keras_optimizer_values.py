"""Regenerates keras_optimizer_values.json: every optimizer case below run by real Keras
3.15 (torch backend) for STEPS steps on fixed float32 variables and gradients, with the
final variables, the optimizer's variables (path, shape, dtype, value) and its config; and
keras_files/<case>.keras, a tiny Dense model trained 3 steps by Keras with that optimizer
(optimizer state included) plus the next step's loss.
Run: KERAS_BACKEND=torch /work/kvenv/bin/python THIS_FILE"""

import json
import os

import keras
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
STEPS = 6
RNG = np.random.default_rng(14)
KERNEL = RNG.normal(size=(2, 3)).astype("float32")
BIAS = RNG.normal(size=(3,)).astype("float32")
GRADS = [(RNG.normal(size=(2, 3)).astype("float32"), RNG.normal(size=(3,)).astype("float32"))
         for _ in range(STEPS)]
# name -> (class name, kwargs)
CASES = {
    "nadam": ("Nadam", {"learning_rate": 0.05}),
    "adamax": ("Adamax", {"learning_rate": 0.05}),
    "adadelta": ("Adadelta", {"learning_rate": 1.0}),
    "lion": ("Lion", {"learning_rate": 0.01}),
    "lion_decay": ("Lion", {"learning_rate": 0.01, "beta_1": 0.8, "beta_2": 0.95,
                            "weight_decay": 0.1}),
    "ftrl": ("Ftrl", {"learning_rate": 0.1}),
    "ftrl_options": ("Ftrl", {"learning_rate": 0.1, "learning_rate_power": -0.7,
                              "initial_accumulator_value": 0.3,
                              "l1_regularization_strength": 0.01,
                              "l2_regularization_strength": 0.02,
                              "l2_shrinkage_regularization_strength": 0.03, "beta": 0.5}),
    "adafactor": ("Adafactor", {"learning_rate": 0.1}),
    "adafactor_options": ("Adafactor", {"learning_rate": 0.1, "relative_step": False,
                                        "beta_2_decay": -0.6, "epsilon_2": 1e-2,
                                        "clip_threshold": 0.5}),
    "adam_ema": ("Adam", {"learning_rate": 0.1, "use_ema": True, "ema_momentum": 0.9}),
    "adam_ema_overwrite": ("Adam", {"learning_rate": 0.1, "use_ema": True,
                                    "ema_momentum": 0.8, "ema_overwrite_frequency": 2}),
    "adam_accumulate": ("Adam", {"learning_rate": 0.1, "gradient_accumulation_steps": 3}),
    "sgd_accumulate_ema": ("SGD", {"learning_rate": 0.1, "momentum": 0.9,
                                   "gradient_accumulation_steps": 2, "use_ema": True}),
    "nadam_accumulate": ("Nadam", {"learning_rate": 0.05, "gradient_accumulation_steps": 2}),
    "lamb": ("Lamb", {"learning_rate": 0.05}),
    "lamb_decay": ("Lamb", {"learning_rate": 0.05, "beta_1": 0.8, "beta_2": 0.95,
                            "epsilon": 1e-3, "weight_decay": 0.1, "clipnorm": 1.0}),
}
FILE_CASES = ("nadam", "adamax", "adadelta", "lion", "ftrl", "adafactor", "adam_ema",
              "adam_accumulate", "lamb")


def run_case(class_name, kwargs):
    kernel = keras.Variable(KERNEL, name="kernel")
    bias = keras.Variable(BIAS, name="bias")
    optimizer = getattr(keras.optimizers, class_name)(**kwargs)
    for g_kernel, g_bias in GRADS:
        optimizer.apply([keras.ops.convert_to_tensor(g_kernel),
                         keras.ops.convert_to_tensor(g_bias)], [kernel, bias])
    state = [{"path": v.path, "shape": list(v.shape), "dtype": str(v.dtype),
              "value": np.asarray(keras.ops.convert_to_numpy(v)).tolist()}
             for v in optimizer.variables]
    after = {"kernel": keras.ops.convert_to_numpy(kernel).tolist(),
             "bias": keras.ops.convert_to_numpy(bias).tolist()}
    optimizer.finalize_variable_values([kernel, bias])
    finalized = {"kernel": keras.ops.convert_to_numpy(kernel).tolist(),
                 "bias": keras.ops.convert_to_numpy(bias).tolist()}
    return {"class_name": class_name, "kwargs": kwargs, "variables": after,
            "finalized": finalized, "optimizer_variables": state,
            "config": optimizer.get_config()}


def file_case(name, class_name, kwargs):
    keras.utils.set_random_seed(3)
    x = RNG.normal(size=(8, 2)).astype("float32")
    y = RNG.normal(size=(8, 3)).astype("float32")
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(3, name="dense")])
    model.compile(optimizer=getattr(keras.optimizers, class_name)(**kwargs), loss="mse")
    for _ in range(3):
        model.train_on_batch(x, y)
    os.makedirs(os.path.join(HERE, "keras_files"), exist_ok=True)
    model.save(os.path.join(HERE, "keras_files", f"{name}.keras"))
    next_loss = float(model.train_on_batch(x, y))
    return {"x": x.tolist(), "y": y.tolist(), "next_loss": next_loss,
            "weights_after_next": [w.tolist() for w in model.get_weights()]}


def main():
    out = {"keras_version": keras.__version__, "steps": STEPS,
           "kernel": KERNEL.tolist(), "bias": BIAS.tolist(),
           "grads": [[g.tolist(), b.tolist()] for g, b in GRADS],
           "cases": {name: run_case(*case) for name, case in CASES.items()},
           "files": {name: file_case(name, *CASES[name]) for name in FILE_CASES}}
    with open(os.path.join(HERE, "keras_optimizer_values.json"), "w") as handle:
        json.dump(out, handle, indent=1)


if __name__ == "__main__":
    main()

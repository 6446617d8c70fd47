"""Shared checks of one optimizer against Keras 3.15's numbers
(``tests/highlevel/optimizers/keras_optimizer_values.json``, written by
``make_keras_optimizer_values.py`` there): steps on fixed variables and gradients, the
optimizer's state in Keras' order, config round trips, save/load continuing training
identically in every format, and Keras-written ``.keras`` files loading and training on.
"""

import json
from pathlib import Path

import numpy as np

import lamina
from lamina.highlevel import optimizers

DATA = Path(__file__).resolve().parent.parent / "highlevel" / "optimizers"
KERAS = json.loads((DATA / "keras_optimizer_values.json").read_text())


def run_steps(case):
    """``(optimizer, kernel, bias)`` after the Keras case's steps, in lamina."""
    kernel = lamina.Variable(np.array(KERAS["kernel"], "float32"), name="kernel")
    bias = lamina.Variable(np.array(KERAS["bias"], "float32"), name="bias")
    optimizer = getattr(optimizers, case["class_name"])(**case["kwargs"])
    for g_kernel, g_bias in KERAS["grads"]:
        optimizer.apply([np.array(g_kernel, "float32"), np.array(g_bias, "float32")],
                        [kernel, bias])
    return optimizer, kernel, bias


def check_steps(name, atol=3e-6):
    """The variables, the optimizer's state (names, shapes, values: Keras' list minus
    its learning rate) and ``finalize_variable_values`` match Keras' case ``name``."""
    case = KERAS["cases"][name]
    optimizer, kernel, bias = run_steps(case)
    np.testing.assert_allclose(kernel.numpy(), case["variables"]["kernel"], atol=atol, rtol=0)
    np.testing.assert_allclose(bias.numpy(), case["variables"]["bias"], atol=atol, rtol=0)
    expected = [v for v in case["optimizer_variables"] if not v["path"].endswith("/learning_rate")]
    got = optimizer.variables
    assert len(got) == len(expected)
    assert int(got[0].numpy()) == expected[0]["value"]
    for variable, reference in zip(got[1:], expected[1:]):
        assert list(variable.shape) == reference["shape"], reference["path"]
        np.testing.assert_allclose(variable.numpy(), reference["value"], atol=atol, rtol=1e-5,
                                   err_msg=reference["path"])
    optimizer.finalize_variable_values([kernel, bias])
    np.testing.assert_allclose(kernel.numpy(), case["finalized"]["kernel"], atol=atol, rtol=0)
    np.testing.assert_allclose(bias.numpy(), case["finalized"]["bias"], atol=atol, rtol=0)


def check_config(name, string_name):
    """``get_config`` has Keras' keys and values; ``from_config``, ``serialize`` /
    ``deserialize`` and the string name round-trip."""
    case = KERAS["cases"][name]
    cls = getattr(optimizers, case["class_name"])
    optimizer = cls(**case["kwargs"])
    config = optimizer.get_config()
    keras_config = dict(case["config"])
    assert set(config) == set(keras_config)
    for key, value in keras_config.items():
        if key == "name":
            continue
        if isinstance(value, float):
            np.testing.assert_allclose(config[key], value, rtol=1e-6, err_msg=key)
        else:
            assert config[key] == value, key
    again = cls.from_config(config)
    assert again.get_config() == config
    assert optimizers.deserialize(optimizers.serialize(optimizer)).get_config() == config
    assert type(optimizers.get(string_name)) is cls
    assert type(lamina.optimizers.get(case["class_name"])) is cls


def _model(optimizer):
    model = lamina.Sequential([lamina.Input((2,)), lamina.layers.Dense(3, name="dense")])
    model.compile(optimizer=optimizer, loss="mse")
    return model


def check_save_load_continues(make_optimizer, tmp_path):
    """Trained 3 steps, saved (``.keras``, ``.h5``, ``.weights.h5``) and loaded, a model
    takes the same next 3 steps as the original."""
    rng = np.random.default_rng(5)
    x = rng.normal(size=(8, 2)).astype("float32")
    y = rng.normal(size=(8, 3)).astype("float32")
    lamina.utils.set_random_seed(1)
    model = _model(make_optimizer())
    for _ in range(3):
        model.train_on_batch(x, y)
    for name in ("m.keras", "m.h5", "m.weights.h5"):
        path = tmp_path / name
        if name.endswith(".weights.h5"):
            model.save_weights(path)
            loaded = _model(make_optimizer())
            loaded.load_weights(path)
        else:
            model.save(path)
            loaded = lamina.saving.load_model(path)
        assert loaded.optimizer.iterations == model.optimizer.iterations, name
        for left, right in zip(loaded.optimizer.variables, model.optimizer.variables):
            np.testing.assert_array_equal(left.numpy(), right.numpy(), err_msg=name)
        twin = lamina.saving.load_model(tmp_path / "m.keras") if name != "m.keras" else None
        reference = twin or lamina.saving.load_model(path)
        for _ in range(3):
            loss = loaded.train_on_batch(x, y)
            assert loss == reference.train_on_batch(x, y), name
    original_losses = [model.train_on_batch(x, y) for _ in range(3)]
    again = lamina.saving.load_model(tmp_path / "m.keras")
    assert [again.train_on_batch(x, y) for _ in range(3)] == original_losses


def check_keras_file(name, atol=3e-6):
    """Keras' ``.keras`` file (trained 3 steps by Keras with this optimizer) loads with
    its optimizer state: lamina's next step gives Keras' loss and weights."""
    reference = KERAS["files"][name]
    model = lamina.saving.load_model(DATA / "keras_files" / f"{name}.keras")
    assert type(model.optimizer).__name__ == KERAS["cases"][name]["class_name"]
    assert model.optimizer.iterations == 3 // (
        model.optimizer.gradient_accumulation_steps or 1)
    x = np.array(reference["x"], "float32")
    y = np.array(reference["y"], "float32")
    loss = float(model.train_on_batch(x, y))
    np.testing.assert_allclose(loss, reference["next_loss"], rtol=1e-5)
    for weight, expected in zip(model.get_weights(), reference["weights_after_next"]):
        np.testing.assert_allclose(weight, expected, atol=atol, rtol=0)

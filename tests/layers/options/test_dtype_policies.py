"""Dtype policies and mixed precision (``lamina.mixed_precision``, ``lamina.dtype_policies``)
against Keras 3.15: the policy API, a Dense layer under "mixed_float16" (float16 outputs,
float32 kernels, Keras' numbers on fixed weights), training, configs and files, and the
bfloat16 decision on the NumPy engine."""

import json
import os

import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.backends.autocast import autocast_dtype

DATA = os.path.join(os.path.dirname(__file__), "..", "..", "data", "keras")
KERAS_POLICY = {"module": "keras", "class_name": "DTypePolicy",
                "config": {"name": "mixed_float16"}, "registered_name": None}


@pytest.fixture
def mixed_float16():
    lamina.mixed_precision.set_global_policy("mixed_float16")
    try:
        yield
    finally:
        lamina.mixed_precision.set_global_policy(None)


def test_policy_api_as_keras():
    policy = lamina.mixed_precision.DTypePolicy("mixed_float16")
    assert (policy.name, policy.compute_dtype, policy.variable_dtype) == (
        "mixed_float16", "float16", "float32")
    bf16 = lamina.dtype_policies.get("mixed_bfloat16")
    assert (bf16.compute_dtype, bf16.variable_dtype) == ("bfloat16", "float32")
    assert lamina.dtype_policies.get("float64").compute_dtype == "float64"
    assert repr(policy) == '<DTypePolicy "mixed_float16">'
    assert lamina.mixed_precision.Policy is lamina.dtype_policies.DTypePolicy
    assert lamina.dtype_policies.serialize(policy) == KERAS_POLICY
    assert lamina.dtype_policies.deserialize(KERAS_POLICY) == policy
    assert lamina.mixed_precision.global_policy() == lamina.dtype_policies.DTypePolicy("float32")
    with pytest.raises(ValueError, match="Cannot convert 'mixed_float8'"):
        lamina.dtype_policies.DTypePolicy("mixed_float8")
    with pytest.raises(ValueError, match="Invalid `policy` argument"):
        lamina.mixed_precision.set_global_policy(3)


def test_default_policy_follows_floatx_until_set():
    lamina.config.set_floatx("float64")
    try:
        assert lamina.mixed_precision.global_policy().name == "float64"
        lamina.mixed_precision.set_global_policy("float32")
        assert layers.Dense(1).dtype == "float32"
        lamina.mixed_precision.set_global_policy(None)     # lamina: back to the default
        assert layers.Dense(1).dtype == "float64"
    finally:
        lamina.config.set_floatx("float32")
        lamina.mixed_precision.set_global_policy(None)


def test_global_policy_applies_to_new_layers(mixed_float16):
    assert lamina.mixed_precision.global_policy().name == "mixed_float16"
    assert lamina.config.dtype_policy().name == "mixed_float16"
    dense = layers.Dense(2)
    assert (dense.dtype_policy.name, dense.compute_dtype, dense.variable_dtype, dense.dtype) == (
        "mixed_float16", "float16", "float32", "float32")
    plain = layers.Dense(2, dtype="float32")
    assert plain.compute_dtype == "float32"
    given = layers.Dense(2, dtype=lamina.dtype_policies.DTypePolicy("float64"))
    assert given.dtype == "float64"


def test_dense_under_mixed_float16_matches_keras(mixed_float16):
    # KERAS_BACKEND=torch keras 3.15.1, set_global_policy("mixed_float16"):
    # Dense(3, activation="tanh") with these weights and inputs.
    dense = layers.Dense(3, activation="tanh")
    dense.build((None, 5))
    kernel = np.arange(15, dtype="float32").reshape(5, 3) / 11 - 0.5
    dense.set_weights([kernel, np.array([0.1, -0.2, 0.3], "float32")])
    x = np.arange(10, dtype="float32").reshape(2, 5) / 7 - 0.6
    out = dense(x)
    assert out.dtype == np.float16 and dense.kernel.dtype == np.float32
    keras_out = [[0.3955078125, -0.0245361328125, 0.32080078125],
                 [0.52294921875, 0.431884765625, 0.81591796875]]
    np.testing.assert_allclose(out.numpy(), keras_out, atol=2e-3)
    assert dense.get_config()["dtype"] == KERAS_POLICY
    assert autocast_dtype() is None                      # the scope ends with the call


def test_float32_output_layer_and_float32_gradients(mixed_float16):
    model = lamina.Sequential([layers.Input((4,)), layers.Dense(3), layers.Dense(2),
                               layers.Activation("linear", dtype="float32")])
    out = model(np.ones((2, 4), "float32"))
    assert out.dtype == np.float32
    assert [layer.compute_dtype for layer in model.layers] == ["float16", "float16", "float32"]
    grads = lamina.grad(lamina.ops.sum(out), model.trainable_weights)
    assert [g.dtype for g in grads] == [np.float32] * 4
    assert all(w.dtype == np.float32 for w in model.weights)


def test_loss_is_computed_in_float32(mixed_float16):
    y_pred = lamina.Tensor(np.array([[0.5], [2.0]], "float16"))
    loss = lamina.losses.MeanSquaredError()(np.array([[0.0], [1.0]], "float32"), y_pred)
    assert loss.dtype == np.float32


def test_training_under_mixed_float16_converges(mixed_float16):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(512, 8)).astype("float32")
    y = (x[:, :1] * 2 - x[:, 1:2]).astype("float32")
    model = lamina.Sequential([layers.Input((8,)), layers.Dense(32, activation="relu"),
                               layers.Dense(1), layers.Activation("linear", dtype="float32")])
    model.compile(lamina.optimizers.Adam(0.01), "mse")
    assert isinstance(model.optimizer, lamina.mixed_precision.LossScaleOptimizer)
    assert model.optimizer.name == "loss_scale_optimizer"
    history = model.fit(x, y, epochs=6, batch_size=32, verbose=0)
    assert history.history["loss"][-1] < 0.05 * history.history["loss"][0]
    assert model.layers[0].kernel.dtype == np.float32


def test_compile_can_leave_the_optimizer_unwrapped(mixed_float16):
    model = lamina.Sequential([layers.Input((2,)), layers.Dense(1, dtype="float32")])
    model.compile("sgd", "mse", auto_scale_loss=False)
    assert type(model.optimizer).__name__ == "SGD"


@pytest.mark.parametrize("extension", ["keras", "h5"])
def test_save_load_keeps_the_policy_and_loss_scale(mixed_float16, tmp_path, extension):
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=(64, 4)).astype("float32"), rng.normal(size=(64, 1)).astype("float32")
    model = lamina.Sequential([layers.Input((4,)), layers.Dense(8, activation="relu"),
                               layers.Dense(1, dtype="float32")])
    model.compile(lamina.optimizers.SGD(0.01), "mse")
    model.fit(x, y, batch_size=16, epochs=1, verbose=0)
    model.optimizer.dynamic_scale.assign(np.float32(1024.0))
    model.optimizer.step_counter.assign(np.int64(3))
    path = str(tmp_path / f"m.{extension}")
    model.save(path)
    lamina.mixed_precision.set_global_policy("float32")    # the file carries the policy
    loaded = lamina.load_model(path)
    assert loaded.layers[0].dtype_policy.name == "mixed_float16"
    assert loaded.layers[1].dtype_policy.name == "float32"
    assert loaded.get_config()["layers"][1]["config"]["dtype"] == KERAS_POLICY
    optimizer = loaded.optimizer
    assert isinstance(optimizer, lamina.mixed_precision.LossScaleOptimizer)
    assert float(optimizer.dynamic_scale.numpy()) == 1024.0
    assert int(optimizer.step_counter.numpy()) == 3
    assert optimizer.iterations == model.optimizer.iterations == 4
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), model.predict(x, verbose=0))


def test_keras_written_mixed_float16_file_loads():
    with open(os.path.join(DATA, "keras_mixed_float16.json")) as handle:
        record = json.load(handle)
    model = lamina.load_model(os.path.join(DATA, "keras_mixed_float16.keras"))
    assert [layer.compute_dtype for layer in model.layers] == ["float16", "float16", "float32"]
    assert type(model.optimizer).__name__ == record["optimizer"]
    assert float(model.optimizer.dynamic_scale.numpy()) == record["dynamic_scale"]
    assert int(model.optimizer.step_counter.numpy()) == record["step_counter"]
    assert model.optimizer.iterations == record["iterations"]
    prediction = model.predict(np.array(record["x"], "float32"), verbose=0)
    np.testing.assert_allclose(prediction, record["predict"], atol=2e-3)


def test_bfloat16_is_refused_on_the_numpy_engine():
    # Decision: NumPy has no bfloat16 dtype (ml_dtypes is not a dependency), so a bfloat16
    # policy can be made and serialized but not used; the error names the engine.
    with pytest.raises(ValueError, match="'numpy' engine.*mixed_float16"):
        lamina.mixed_precision.set_global_policy("mixed_bfloat16")
    assert lamina.mixed_precision.global_policy().name == "float32"
    with pytest.raises(ValueError, match="bfloat16"):
        layers.Dense(2, dtype="mixed_bfloat16")


def test_keras_file_layout_for_mixed_precision(mixed_float16, tmp_path):
    # The same model as keras_mixed_float16.keras: lamina writes Keras' config entries and
    # optimizer groups (Keras 3.15 loaded such a file: policies, loss scale and
    # predictions identical).
    import h5py
    import zipfile
    model = lamina.Sequential([layers.Input((4,)), layers.Dense(3, activation="relu", name="d1"),
                               layers.Dense(2, name="d2"),
                               layers.Activation("linear", dtype="float32", name="out")])
    model.compile(lamina.optimizers.SGD(0.05), "mse")
    model.fit(np.ones((8, 4), "float32"), np.zeros((8, 2), "float32"), batch_size=4, verbose=0)
    path = str(tmp_path / "m.keras")
    model.save(path)

    def layout(filename):
        with zipfile.ZipFile(filename) as archive:
            config = json.loads(archive.read("config.json"))
            (tmp_path / "w.h5").write_bytes(archive.read("model.weights.h5"))
        groups = []
        with h5py.File(tmp_path / "w.h5", "r") as handle:
            handle.visit(lambda name: groups.append(name) if name.startswith("optimizer")
                         else None)
        # Keras adds a "shared_object_id" to the global policy's entries and writes
        # plain policies as dicts too (lamina: the dtype name, which Keras reads)
        entries = [config["config"]] + [e["config"] for e in config["config"]["layers"][1:]]
        dtypes = [{k: v for k, v in e["dtype"].items() if k != "shared_object_id"}
                  if lamina.dtype_policies.get(e["dtype"]).name.startswith("mixed")
                  else lamina.dtype_policies.get(e["dtype"]).name for e in entries]
        return dtypes, sorted(groups)

    assert layout(path) == layout(os.path.join(DATA, "keras_mixed_float16.keras"))

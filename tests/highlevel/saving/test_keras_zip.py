"""The ``.keras`` format: round trips (weights, compile and optimizer state, a resumed
``fit``), every entry point (``model.save``, ``lamina.saving`` / ``lamina.models`` /
``lamina.load_model``, ``save_model``, ``load_weights``, ``ModelCheckpoint``), Keras'
archive layout, integrity (checksums), atomic writes and ``safe_mode``. Interoperability
with real Keras files is in ``tests/highlevel/test_keras_interop.py``; the container's
guards in ``test_keras_archive.py``."""

import io
import json
import os
import subprocess
import sys
import zipfile

import numpy as np
import pytest

import lamina
from lamina.highlevel.saving import keras_zip
from lamina.saving import (ConfigError, CorruptFileError, UnknownClassError,
                           UnsupportedFormatError)


def data(seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(32, 6)).astype("float32"), rng.normal(size=(32, 2)).astype("float32")


def model(compiled=True):
    lamina.utils.set_random_seed(1)
    net = lamina.Sequential([lamina.Input((6,)), lamina.layers.Dense(8, activation="relu"),
                             lamina.layers.BatchNormalization(),
                             lamina.layers.Dense(2)], name="net")
    if compiled:
        net.compile(optimizer=lamina.optimizers.Adam(learning_rate=0.01), loss="mse",
                    metrics=["mae"])
    return net


def members(path):
    with zipfile.ZipFile(path) as archive:
        return {info.filename: archive.read(info) for info in archive.infolist()}


def rewrite(path, changed):
    """Re-pack the archive with some members replaced (the others unchanged)."""
    content = members(path)
    content.update(changed)
    with zipfile.ZipFile(path, "w") as archive:
        for name, value in content.items():
            archive.writestr(name, value)


def test_round_trip_restores_weights_compile_and_optimizer_state(tmp_path):
    x, y = data()
    net = model()
    net.fit(x, y, epochs=2, batch_size=8, verbose=0)
    net.save(tmp_path / "m.keras")
    loaded = lamina.load_model(tmp_path / "m.keras")
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), net.predict(x, verbose=0))
    assert loaded.compiled and loaded.optimizer.iterations == 8
    # (every optimizer's state: test_saving.py's test_every_optimizer_state_round_trips)
    net.fit(x, y, epochs=1, batch_size=8, verbose=0)      # shuffled from (seed, epoch)
    loaded.fit(x, y, epochs=1, batch_size=8, verbose=0)
    assert all(np.array_equal(a, b) for a, b in zip(net.get_weights(), loaded.get_weights()))
    assert not lamina.models.load_model(tmp_path / "m.keras", compile=False).compiled


def test_the_archive_has_keras_members_and_schema(tmp_path):
    net = model()
    lamina.saving.save_model(net, tmp_path / "m.keras")
    content = members(tmp_path / "m.keras")
    assert list(content) == ["metadata.json", "config.json", "model.weights.h5"]
    config = json.loads(content["config.json"])
    assert {k: config[k] for k in ("module", "class_name", "registered_name")} == {
        "module": "keras", "class_name": "Sequential", "registered_name": None}
    assert config["build_config"] == {"input_shape": [None, 6]}
    assert set(config["compile_config"]) == {
        "optimizer", "loss", "loss_weights", "metrics", "weighted_metrics", "run_eagerly",
        "steps_per_execution", "jit_compile"}
    assert config["compile_config"]["optimizer"]["module"] == "keras.optimizers"
    metadata = json.loads(content["metadata.json"])
    assert metadata["keras_version"] == "3.15.1" and "@" in metadata["date_saved"]
    assert set(metadata["lamina"]["sha256"]) == {"config.json", "model.weights.h5"}
    assert content["model.weights.h5"].startswith(b"\x89HDF")


def test_uncompiled_and_include_optimizer_false(tmp_path):
    net = model()
    net.save(tmp_path / "m.keras", include_optimizer=False)
    assert "compile_config" not in json.loads(members(tmp_path / "m.keras")["config.json"])
    assert not lamina.load_model(tmp_path / "m.keras").compiled
    model(compiled=False).save(tmp_path / "u.keras")
    assert not lamina.load_model(tmp_path / "u.keras").compiled


def test_load_weights_reads_a_keras_archive_and_save_weights_refuses_one(tmp_path):
    x, _ = data()
    source = model()
    source.save(tmp_path / "m.keras")
    target = model(compiled=False)
    target.load_weights(tmp_path / "m.keras")
    np.testing.assert_array_equal(target.predict(x, verbose=0), source.predict(x, verbose=0))
    lamina.saving.load_weights(target, tmp_path / "m.keras")
    lamina.saving.save_weights(target, tmp_path / "w.weights.h5")
    with pytest.raises(UnsupportedFormatError, match="whole model"):
        lamina.saving.save_weights(target, tmp_path / "w.keras")


def test_model_checkpoint_writes_keras_archives(tmp_path):
    x, y = data()
    net = model()
    pattern = str(tmp_path / "ckpt_{epoch}.keras")
    net.fit(x, y, epochs=2, verbose=0, callbacks=[lamina.callbacks.ModelCheckpoint(pattern)])
    assert sorted(os.listdir(tmp_path)) == ["ckpt_1.keras", "ckpt_2.keras"]
    last = lamina.saving.load_model(tmp_path / "ckpt_2.keras")
    np.testing.assert_array_equal(last.predict(x, verbose=0), net.predict(x, verbose=0))


def test_bytes_and_functional_models():
    inputs = lamina.Input((6,), name="a")
    outputs = lamina.layers.Dense(3, name="head")(lamina.layers.Dense(4, name="body")(inputs))
    net = lamina.Model(inputs, outputs, name="f")
    loaded = lamina.load_model(keras_zip.to_bytes(net))
    x, _ = data()
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), net.predict(x, verbose=0))


@pytest.mark.parametrize("member", ["config.json", "model.weights.h5"])
def test_a_changed_member_fails_its_checksum(tmp_path, member):
    net = model()
    net.save(tmp_path / "m.keras")
    original = members(tmp_path / "m.keras")[member]
    if member == "config.json":
        changed = original.replace(b'"units": 8', b'"units": 9')
    else:
        index = original.rindex(b"\x00" * 8) - 4
        changed = original[:index] + bytes([original[index] ^ 0xFF]) + original[index + 1:]
    assert changed != original
    rewrite(tmp_path / "m.keras", {member: changed})
    with pytest.raises(CorruptFileError, match=f"m.keras.*(checksum of {member}|corrupt)") \
            as error:
        lamina.load_model(tmp_path / "m.keras")
    assert error.value.path == str(tmp_path / "m.keras")


def test_keras_ignores_our_metadata_but_we_verify_it(tmp_path):
    net = model()
    net.save(tmp_path / "m.keras")
    metadata = json.loads(members(tmp_path / "m.keras")["metadata.json"])
    metadata["lamina"]["format_version"] = 99
    rewrite(tmp_path / "m.keras", {"metadata.json": json.dumps(metadata)})
    with pytest.raises(UnsupportedFormatError, match="version 99"):
        lamina.load_model(tmp_path / "m.keras")
    del metadata["lamina"]                  # as Keras writes it: no checksums to verify
    rewrite(tmp_path / "m.keras", {"metadata.json": json.dumps(metadata)})
    assert lamina.load_model(tmp_path / "m.keras").count_params() == net.count_params()


def test_saving_is_atomic(tmp_path, monkeypatch):
    net = model()
    net.save(tmp_path / "m.keras")
    before = (tmp_path / "m.keras").read_bytes()
    with pytest.raises(FileExistsError):
        net.save(tmp_path / "m.keras", overwrite=False)

    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(keras_zip.keras_archive.atomic_write, "write_atomically", broken)
    with pytest.raises(OSError, match="No space"):
        net.save(tmp_path / "m.keras")
    assert (tmp_path / "m.keras").read_bytes() == before
    assert os.listdir(tmp_path) == ["m.keras"]


def double(x):
    return x * 2


def lambda_model():
    inputs = lamina.Input((3,))
    return lamina.Model(inputs, lamina.layers.Lambda(double, name="twice")(inputs))


def test_lambda_functions_come_from_custom_objects_only(tmp_path):
    lambda_model().save(tmp_path / "m.keras")
    with pytest.raises(UnknownClassError, match="never runs code"):
        lamina.load_model(tmp_path / "m.keras")
    loaded = lamina.load_model(tmp_path / "m.keras", custom_objects={"double": double})
    assert loaded.predict(np.ones((1, 3), "float32"), verbose=0).tolist() == [[2, 2, 2]]


def save_lambda_stored_as_code(path):
    """A Keras-written-like file whose Lambda stores its function as code."""
    lambda_model().save(path)
    config = json.loads(members(path)["config.json"])
    config["config"]["layers"][1]["config"]["function"] = {
        "class_name": "__lambda__", "config": {"code": "4wEAAAAAAAAA", "defaults": None,
                                               "closure": None}}
    content = members(path)
    metadata = json.loads(content["metadata.json"])
    del metadata["lamina"]
    rewrite(path, {"config.json": json.dumps(config), "metadata.json": json.dumps(metadata)})


def test_safe_mode_refuses_lambdas_stored_as_code(tmp_path):
    save_lambda_stored_as_code(tmp_path / "m.keras")
    with pytest.raises(ConfigError, match="safe_mode"):
        lamina.load_model(tmp_path / "m.keras", custom_objects={"twice": double})
    loaded = lamina.load_model(tmp_path / "m.keras", safe_mode=False,
                               custom_objects={"twice": double})    # never from the code
    assert loaded.predict(np.ones((1, 3), "float32"), verbose=0).tolist() == [[2, 2, 2]]
    with pytest.raises(UnknownClassError, match="never runs code"):
        lamina.load_model(tmp_path / "m.keras", safe_mode=False)


def test_enable_unsafe_deserialization_makes_safe_mode_off_the_default(tmp_path):
    save_lambda_stored_as_code(tmp_path / "m.keras")
    code = f"""if True:
        import numpy as np, lamina
        from lamina.saving import ConfigError
        def double(x):
            return x * 2
        path, objects = {str(tmp_path / "m.keras")!r}, {{"twice": double}}
        try:
            lamina.load_model(path, custom_objects=objects)
            raise SystemExit("loaded in safe mode")
        except ConfigError:
            pass
        lamina.config.enable_unsafe_deserialization()
        loaded = lamina.load_model(path, custom_objects=objects)
        assert loaded.predict(np.ones((1, 3), "float32"), verbose=0).tolist() == [[2, 2, 2]]
        """
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_stored_module_is_never_imported(tmp_path, monkeypatch):
    model(compiled=False).save(tmp_path / "m.keras")
    config = json.loads(members(tmp_path / "m.keras")["config.json"])
    for layer in config["config"]["layers"]:
        layer["module"] = "lamina_test_module_that_does_not_exist"
    metadata = json.loads(members(tmp_path / "m.keras")["metadata.json"])
    del metadata["lamina"]
    rewrite(tmp_path / "m.keras", {"config.json": json.dumps(config),
                                    "metadata.json": json.dumps(metadata)})
    assert len(lamina.load_model(tmp_path / "m.keras").layers) == 3


def test_dispatch_reads_a_zip_by_content(tmp_path):
    model().save(tmp_path / "m.keras")
    os.replace(tmp_path / "m.keras", tmp_path / "renamed.bin")
    assert keras_zip.is_keras_zip(tmp_path / "renamed.bin")
    assert len(lamina.load_model(tmp_path / "renamed.bin").layers) == 3
    assert not keras_zip.is_keras_zip(io.BytesIO().getvalue())

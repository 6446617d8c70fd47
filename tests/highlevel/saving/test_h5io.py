"""Durability and safety of checkpoints: atomic writes (an interrupted or killed save leaves
the previous file intact), checksums that catch corruption, documented errors for bad
files (raised before the model changes), no code execution, and a fuzz test of flipped and
truncated bytes run in a subprocess."""

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap

import h5py
import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.highlevel.saving import (errors as checkpoint_errors, h5io as file_integrity,
                                     model_file as saving)
from lamina.highlevel.saving.errors import (CheckpointError, CorruptFileError,
                                                MissingConfigError, NotHDF5Error,
                                                TruncatedFileError, UnknownClassError,
                                                UnsupportedFormatError)

KERAS_DATA = os.path.join(os.path.dirname(__file__), "..", "data", "keras")


def make_model(seed=0):
    lamina.utils.set_random_seed(seed)
    model = lamina.Sequential([layers.Input((4,)), layers.Dense(6, activation="relu"),
                               layers.Dense(2)], name="safety")
    model.compile(optimizer="adam", loss="mse")
    model.train_on_batch(np.ones((3, 4), "float32"), np.zeros((3, 2), "float32"))
    return model


X = np.linspace(-1, 1, 12, dtype="float32").reshape(3, 4)


def predictions(model):
    return model.predict(X, verbose=0)


# ----------------------------------------------------------------------------- atomic writes
@pytest.mark.parametrize("method, suffix", [("save", ".h5"), ("save_weights", ".h5"),
                                            ("save_weights", ".weights.h5")])
@pytest.mark.parametrize("failure", [OSError("disk full"), KeyboardInterrupt()])
def test_a_failed_write_leaves_the_previous_file_intact(tmp_path, monkeypatch, method, suffix,
                                                        failure):
    path = tmp_path / f"model{suffix}"
    old = make_model(seed=1)
    getattr(old, method)(path)
    before = path.read_bytes()
    calls = []
    real_write = file_integrity.write_array

    def failing_write(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:                 # in the middle of the weights
            raise failure
        return real_write(*args, **kwargs)

    monkeypatch.setattr(file_integrity, "write_array", failing_write)
    with pytest.raises(type(failure)):
        getattr(make_model(seed=2), method)(path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == [path.name]          # no temporary file left behind
    if method == "save":
        np.testing.assert_array_equal(predictions(lamina.load_model(path)), predictions(old))
    else:
        twin = make_model(seed=3)
        twin.load_weights(path)
        np.testing.assert_array_equal(predictions(twin), predictions(old))


def test_killing_the_process_mid_save_keeps_the_previous_checkpoint(tmp_path):
    path = tmp_path / "m.h5"
    old = make_model(seed=1)
    old.save(path)
    script = textwrap.dedent(f"""
        import sys, time
        import numpy as np
        import lamina
        from lamina.highlevel.saving import h5io as file_integrity
        real = file_integrity.write_array
        count = [0]
        def slow(*args, **kwargs):
            count[0] += 1
            if count[0] == 2:
                print("writing", flush=True)
                time.sleep(60)
            return real(*args, **kwargs)
        file_integrity.write_array = slow
        model = lamina.Sequential([lamina.layers.Input((4,)), lamina.layers.Dense(6),
                                   lamina.layers.Dense(2)])
        model.save({str(path)!r})
    """)
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                             text=True)
    try:
        assert child.stdout.readline().strip() == "writing"
        child.send_signal(signal.SIGKILL)
    finally:
        child.wait(timeout=30)
    np.testing.assert_array_equal(predictions(lamina.load_model(path)), predictions(old))
    leftovers = [name for name in os.listdir(tmp_path) if name != "m.h5"]
    assert all(name.startswith(".m.h5.") and name.endswith(".tmp") for name in leftovers)


def test_overwrite_false_refuses_to_replace(tmp_path):
    make_model().save(tmp_path / "m.h5")
    with pytest.raises(FileExistsError):
        make_model().save(tmp_path / "m.h5", overwrite=False)


# ----------------------------------------------------------------------------- checksums
def _flip_dataset_byte(path, dataset_path, offset_in_data=1):
    with h5py.File(path, "r") as handle:
        offset = handle[dataset_path].id.get_offset()
    with open(path, "r+b") as handle:
        handle.seek(offset + offset_in_data)
        value = handle.read(1)
        handle.seek(offset + offset_in_data)
        handle.write(bytes([value[0] ^ 0x10]))


def test_a_corrupted_weight_is_reported_not_loaded(tmp_path):
    path = tmp_path / "m.h5"
    model = make_model()
    model.save(path)
    layer = model.layers[0].name
    _flip_dataset_byte(path, f"model_weights/{layer}/safety/{layer}/kernel")
    with pytest.raises(CorruptFileError, match="checksum mismatch") as error:
        lamina.load_model(path)
    assert layer in str(error.value) and "m.h5" in str(error.value)
    target = make_model(seed=5)
    before = target.get_weights()
    with pytest.raises(CorruptFileError):
        target.load_weights(path)
    with pytest.raises(CorruptFileError):
        target._restore_from_checkpoint(path)
    assert all(np.array_equal(a, b) for a, b in zip(before, target.get_weights()))


def test_corrupted_weights_layout_file_is_reported(tmp_path):
    path = tmp_path / "m.weights.h5"
    make_model().save_weights(path)
    with h5py.File(path, "r") as handle:
        first = sorted(name for name in handle["layers"])[0]
    _flip_dataset_byte(path, f"layers/{first}/vars/0", offset_in_data=5)
    with pytest.raises(CorruptFileError, match="checksum"):
        make_model(seed=4).load_weights(path)


@pytest.mark.parametrize("tamper", ["model_config", "training_config", "drop_checksum",
                                    "optimizer"])
def test_tampered_configs_and_missing_checksums_are_reported(tmp_path, tamper):
    path = tmp_path / "m.h5"
    make_model().save(path)
    with h5py.File(path, "r+") as handle:
        if tamper == "model_config":            # same length: only the checksum differs
            handle.attrs["model_config"] = np.bytes_(handle.attrs["model_config"].replace(
                b'"units": 6', b'"units": 7'))
        elif tamper == "training_config":
            handle.attrs["training_config"] = np.bytes_(
                handle.attrs["training_config"].replace(b'"amsgrad": false',
                                                        b'"amsgrad": true '))
        elif tamper == "drop_checksum":
            name = handle["model_weights"].attrs["layer_names"][0].decode()
            group = handle["model_weights"][name]
            first = group.attrs["weight_names"][0].decode()
            del group[first].attrs["lamina_sha256"]
        else:
            weights = handle["optimizer_weights"]
            name = weights.attrs["weight_names"][0].decode()
            weights[name][()] = 1000
    with pytest.raises(CorruptFileError, match="checksum"):
        lamina.load_model(path)


def test_variable_length_strings_in_a_lamina_file_are_refused_unread(tmp_path):
    path = tmp_path / "m.h5"
    make_model().save(path)
    with h5py.File(path, "r+") as handle:
        handle.attrs["model_config"] = handle.attrs["model_config"].decode()   # vlen str
    with pytest.raises(CorruptFileError, match="variable-length"):
        lamina.load_model(path)


def test_keras_files_without_checksums_load(tmp_path):
    model = lamina.load_model(os.path.join(KERAS_DATA, "keras_mlp.h5"))
    assert model.predict(np.zeros((1, 8), "float32"), verbose=0).shape == (1, 3)


def test_newer_format_versions_are_refused(tmp_path):
    path = tmp_path / "m.h5"
    make_model().save(path)
    with h5py.File(path, "r+") as handle:
        handle.attrs["lamina_format_version"] = 99
    with pytest.raises(UnsupportedFormatError, match="version 99"):
        lamina.load_model(path)


# ----------------------------------------------------------------------------- trusted values
def _keras_copy(tmp_path, edit_config=None):
    path = tmp_path / "k.h5"
    shutil.copy(os.path.join(KERAS_DATA, "keras_mlp.h5"), path)     # no checksums
    if edit_config is not None:
        with h5py.File(path, "r+") as handle:
            config = json.loads(handle.attrs["model_config"])
            edit_config(config["config"]["layers"][1]["config"])    # layer 'hidden'
            handle.attrs["model_config"] = json.dumps(config)
    return path


def test_a_config_cannot_build_far_more_weights_than_the_file_stores(tmp_path):
    path = _keras_copy(tmp_path, lambda config: config.update(units=60_000_000))
    with pytest.raises(checkpoint_errors.ConfigError, match="'hidden'.*kernel") as error:
        lamina.load_model(path)                  # refused before the 1.9 GB kernel exists
    assert "k.h5" in str(error.value) and "weight values" in str(error.value)


@pytest.mark.parametrize("dtype", ["complex64", "object"])
def test_layer_dtypes_that_are_not_real_numbers_are_refused(tmp_path, dtype):
    path = _keras_copy(tmp_path, lambda config: config.update(dtype=dtype))
    with pytest.raises(checkpoint_errors.ConfigError, match=f"'hidden'.*{dtype}"):
        lamina.load_model(path)


def test_an_integer_layer_dtype_does_not_truncate_stored_weights(tmp_path):
    path = _keras_copy(tmp_path, lambda config: config.update(dtype="int32"))
    with pytest.raises(checkpoint_errors.WeightMismatchError,
                       match="'hidden'.*int32.*truncate"):
        lamina.load_model(path)


@pytest.mark.parametrize("value", [np.float64(1e300), np.int64(-7), np.float64(np.nan)])
def test_a_bad_optimizer_iteration_is_refused(tmp_path, value):
    path = _keras_copy(tmp_path)
    with h5py.File(path, "r+") as handle:
        del handle["optimizer_weights/adam/iteration"]
        handle["optimizer_weights/adam/iteration"] = value
    with pytest.raises(CorruptFileError, match="k.h5.*iteration"):
        lamina.load_model(path)


def test_the_stored_random_seed_is_checksummed_and_validated(tmp_path):
    path = tmp_path / "m.h5"
    make_model().save(path)
    with h5py.File(path, "r+") as handle:
        handle.attrs[saving.SEED_ATTR] = np.int64(-5)
    with pytest.raises(CorruptFileError, match="random_seed"):
        lamina.load_model(path)
    with h5py.File(path, "r+") as handle:       # a consistent checksum: the range decides
        stored = json.loads(handle.attrs[file_integrity.CHECKSUMS_ATTR])
        stored["random_seed"] = file_integrity.text_checksum("-5")
        file_integrity.write_text_attr(handle, file_integrity.CHECKSUMS_ATTR,
                                       json.dumps(stored))
    with pytest.raises(CorruptFileError, match="lamina_random_seed is -5"):
        lamina.load_model(path)


# ----------------------------------------------------------------------------- bad files
def test_documented_errors_for_bad_files(tmp_path):
    text = tmp_path / "notes.h5"
    text.write_text("just some text, not HDF5\n" * 10)
    with pytest.raises(NotHDF5Error, match="notes.h5"):
        lamina.load_model(text)
    empty = tmp_path / "empty.h5"
    empty.write_bytes(b"")
    with pytest.raises(NotHDF5Error):
        lamina.load_model(empty)
    with pytest.raises(FileNotFoundError):
        lamina.load_model(tmp_path / "missing.h5")
    with pytest.raises(file_integrity.CheckpointNotFoundError):
        make_model().load_weights(tmp_path / "missing.h5")
    good = tmp_path / "good.h5"
    make_model().save(good)
    truncated = tmp_path / "truncated.h5"
    truncated.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    with pytest.raises(TruncatedFileError, match="truncated"):
        lamina.load_model(truncated)
    weights_only = tmp_path / "weights_only.h5"
    make_model().save_weights(weights_only)
    with pytest.raises(MissingConfigError, match="weights_only.h5"):
        lamina.load_model(weights_only)


def test_unknown_layer_class_names_the_layer_and_custom_objects(tmp_path):
    path = tmp_path / "k.h5"
    shutil.copy(os.path.join(KERAS_DATA, "keras_mlp.h5"), path)     # no checksums
    with h5py.File(path, "r+") as handle:
        config = json.loads(handle.attrs["model_config"])
        config["config"]["layers"][1]["class_name"] = "FancyDense"
        handle.attrs["model_config"] = json.dumps(config)
    with pytest.raises(UnknownClassError) as error:
        lamina.load_model(path)
    message = str(error.value)
    assert "FancyDense" in message and "hidden" in message and "custom_objects" in message
    assert "k.h5" in message


def test_stored_code_is_never_run(tmp_path):
    marker = tmp_path / "ran"
    path = tmp_path / "k.h5"
    shutil.copy(os.path.join(KERAS_DATA, "keras_mlp.h5"), path)
    with h5py.File(path, "r+") as handle:
        config = json.loads(handle.attrs["model_config"])
        code = f"open({str(marker)!r}, 'w')"
        config["config"]["layers"].insert(2, {"class_name": "Lambda", "config": {
            "name": "evil", "function": [code, None, None], "function_type": "lambda",
            "arguments": {}}})
        handle.attrs["model_config"] = json.dumps(config)
    with pytest.raises(UnknownClassError, match="never runs code"):
        lamina.load_model(path)
    assert not marker.exists()
    sources = "".join(open(module.__file__).read() for module in (
        saving, file_integrity, checkpoint_errors, lamina.highlevel.saving.weights_file,
        lamina.highlevel.saving.keras_format, lamina.highlevel.saving.model_config,
        lamina.highlevel.saving.optimizer_state))
    for forbidden in ("pickle.load", "eval(", "exec(", "marshal", "import yaml"):
        assert forbidden not in sources


def test_error_classes_are_documented_value_errors():
    for name in checkpoint_errors.__all__:
        value = getattr(checkpoint_errors, name)
        if isinstance(value, type):
            assert issubclass(value, CheckpointError) and issubclass(value, ValueError)
            assert value.__doc__
    assert saving.CheckpointError is CheckpointError


# ----------------------------------------------------------------------------- fuzzing
_WORKER = textwrap.dedent("""
    import json, sys, warnings
    import numpy as np
    import lamina
    from lamina.highlevel.saving.errors import CheckpointError
    warnings.simplefilter("ignore")
    reference = np.load(sys.argv[1])
    x = reference["x"]
    for line in sys.stdin:
        path = line.strip()
        print(json.dumps({"start": path}), flush=True)
        outcomes = []
        for mode in ("load_model", "load_weights"):
            try:
                if mode == "load_model":
                    model = lamina.load_model(path)
                else:
                    model = lamina.Sequential([lamina.layers.Input((4,)),
                                               lamina.layers.Dense(6, activation="relu"),
                                               lamina.layers.Dense(2)])
                    before = model.get_weights()
                    try:
                        model.load_weights(path)
                    except CheckpointError:
                        unchanged = all(np.array_equal(a, b) for a, b in
                                        zip(before, model.get_weights()))
                        if not unchanged:
                            raise RuntimeError("half-loaded model after an error")
                        raise
                same = np.array_equal(model.predict(x, verbose=0), reference["y"])
                outcomes.append("same" if same else "different")
            except CheckpointError as error:
                outcomes.append("error:" + type(error).__name__)
            except BaseException as error:
                outcomes.append(f"undocumented:{type(error).__name__}:{error}"[:300])
        print(json.dumps({"done": path, "outcomes": outcomes}), flush=True)
""")


def _mutations(data, rng, count_flips, count_truncations, tag):
    """``[(description, bytes)]``: single-bit flips (half anywhere, half on non-zero bytes,
    which hold the file's structure and numbers) and truncations."""
    result = []
    meaningful = np.flatnonzero(np.frombuffer(data, dtype=np.uint8))
    offsets = list(rng.choice(len(data), size=count_flips // 2, replace=False))
    offsets += list(rng.choice(meaningful, size=count_flips - len(offsets), replace=False))
    for offset in sorted(set(int(o) for o in offsets)):
        mutated = bytearray(data)
        mutated[offset] ^= 1 << int(rng.integers(0, 8))
        result.append((f"{tag}: flip at offset {offset}", bytes(mutated)))
    for length in sorted(rng.integers(1, len(data), size=count_truncations)):
        result.append((f"{tag}: truncated to {length} bytes", data[:length]))
    return result


def _run_worker(folder, reference, files, timeout):
    """Outcomes per file; a crash or hang is recorded for the file being read and the
    worker restarts on the rest."""
    outcomes, remaining = {}, list(files)
    while remaining:
        child = subprocess.Popen([sys.executable, "-c", _WORKER, reference],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, cwd=folder)
        try:
            stdout, stderr = child.communicate("\n".join(remaining) + "\n",
                                               timeout=timeout + 2 * len(remaining))
            hung = False
        except subprocess.TimeoutExpired:
            child.kill()
            stdout, stderr = child.communicate()
            hung = True
        started = None
        for line in stdout.splitlines():
            record = json.loads(line)
            if "start" in record:
                started = record["start"]
            else:
                outcomes[record["done"]] = record["outcomes"]
                started = None
        if started is not None:
            outcomes[started] = ["hang" if hung else f"crash (rc {child.returncode}): "
                                 f"{stderr[-300:]}"]
        elif child.returncode != 0 and not hung:
            raise AssertionError(f"fuzz worker failed outside a load: {stderr[-2000:]}")
        remaining = [f for f in remaining if f not in outcomes]
    return outcomes


def test_fuzzed_files_load_correctly_or_raise_documented_errors(tmp_path):
    model = lamina.Sequential([layers.Input((4,)), layers.Dense(6, activation="relu"),
                               layers.Dense(2)])
    model.compile(optimizer="adam", loss="mse")
    model.train_on_batch(X, np.zeros((3, 2), "float32"))
    np.savez(tmp_path / "reference.npz", x=X, y=model.predict(X, verbose=0))
    model.save(tmp_path / "base.h5")
    model.save_weights(tmp_path / "base.weights.h5")
    rng = np.random.default_rng(20240601)
    mutations = _mutations((tmp_path / "base.h5").read_bytes(), rng, 24, 6, "base.h5")
    mutations += _mutations((tmp_path / "base.weights.h5").read_bytes(), rng, 8, 2,
                            "base.weights.h5")
    files, described = [], {}
    for index, (description, content) in enumerate(mutations):
        name = f"mutant_{index:02d}{'.weights.h5' if 'weights' in description else '.h5'}"
        (tmp_path / name).write_bytes(content)
        files.append(name)
        described[name] = description
    outcomes = _run_worker(str(tmp_path), str(tmp_path / "reference.npz"), files, timeout=20)
    problems = []
    for name in files:
        for outcome in outcomes[name]:
            if outcome == "same" or outcome.startswith("error:"):
                continue
            problems.append(f"{described[name]}: {outcome}")
    assert not problems, "unsafe loads:\n" + "\n".join(problems)
    kinds = {o for values in outcomes.values() for o in values}
    assert "same" in kinds and any(k.startswith("error:") for k in kinds)


def test_fuzzed_files_with_a_config_over_64_kb_load_or_raise_documented_errors(tmp_path):
    """The same guarantee for a file whose model_config lives in HDF5's dense attribute
    storage (a fractal heap and a B-tree), which only configs over 64 KB use."""
    lamina.utils.set_random_seed(0)
    model = lamina.Sequential([layers.Input((4,))] +
                              [layers.Dense(4, activation="tanh", use_bias=False)
                               for _ in range(160)] + [layers.Dense(2)])
    model.save(tmp_path / "big.h5")
    with h5py.File(tmp_path / "big.h5", "r") as handle:
        assert len(handle.attrs["model_config"]) > 65536
    np.savez(tmp_path / "reference.npz", x=X, y=model.predict(X, verbose=0))
    rng = np.random.default_rng(20240602)
    mutations = _mutations((tmp_path / "big.h5").read_bytes(), rng, 20, 4, "big.h5")
    files = []
    for index, (_, content) in enumerate(mutations):
        (tmp_path / f"mutant_{index:02d}.h5").write_bytes(content)
        files.append(f"mutant_{index:02d}.h5")
    outcomes = _run_worker(str(tmp_path), str(tmp_path / "reference.npz"), files, timeout=60)
    problems = [f"{description}: {outcome}"
                for name, (description, _) in zip(files, mutations)
                for outcome in outcomes[name]
                if outcome != "same" and not outcome.startswith("error:")]
    assert not problems, "unsafe loads:\n" + "\n".join(problems)

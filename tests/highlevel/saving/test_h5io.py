"""Durable HDF5 files (``h5io``): checksums that catch corruption, documented errors for
bad files (raised before the model changes), a fuzz test of flipped and truncated bytes run
in a subprocess, and guarded reading: a checkpoint must be self-contained (no external raw
storage, external link, virtual dataset or soft link leaving the file) and declare no more
data than the file holds, refused before any data is read; HDF5 user blocks are
accepted."""

import json
import os
import shutil
import subprocess
import sys
import textwrap

import h5py
import numpy as np
import pytest

import lamina
from harness.saving import KERAS_DATA
from lamina import layers
from lamina.highlevel.saving import h5io as file_integrity, model_file as saving
from lamina.highlevel.saving.errors import (CorruptFileError, MissingConfigError,
                                            NotHDF5Error, TruncatedFileError,
                                            UnsupportedFormatError)


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
        target.restore_from_checkpoint(path)
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
    # The unmutated file is the control: the worker must see it load as it was saved.
    files, described = ["base.h5"], {"base.h5": "unmutated control"}
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
    assert outcomes["base.h5"] == ["same", "same"]
    kinds = {o for name in files[1:] for o in outcomes[name]}
    assert any(k.startswith("error:") for k in kinds)


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


# ----------------------------------------------------------------------------- guarded reading
KERAS_MLP = os.path.join(KERAS_DATA, "keras_mlp.h5")
BIAS = "model_weights/hidden/mlp/hidden/bias"           # (16,) float32
KERAS_X = np.ones((1, 8), "float32")


def keras_file(tmp_path, name="k.h5"):
    path = tmp_path / name
    shutil.copy(KERAS_MLP, path)
    return path


def replace_bias(path, **dataset_options):
    with h5py.File(path, "r+") as handle:
        del handle[BIAS]
        handle.create_dataset(BIAS, **dataset_options)


def test_external_raw_storage_is_never_read(tmp_path):
    path = keras_file(tmp_path)
    replace_bias(path, shape=(16,), dtype="float32",
                 external=[("/proc/self/environ", 0, 64)])
    with pytest.raises(UnsupportedFormatError, match="k.h5.*bias.*external file") as error:
        lamina.load_model(path)
    assert "/proc/self/environ" in str(error.value)
    with pytest.raises(UnsupportedFormatError, match="external file"):
        lamina.load_model(path.read_bytes())


def run_isolated(code):
    """Run ``code`` in a fresh interpreter; a load that blocks (on a FIFO) fails the test
    after a timeout instead of hanging the suite. Returns its stdout."""
    try:
        result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)],
                                capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("loading the file blocked")
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_external_storage_on_a_fifo_does_not_block(tmp_path):
    path = keras_file(tmp_path)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    replace_bias(path, shape=(16,), dtype="float32", external=[(str(fifo), 0, 64)])
    assert "refused" in run_isolated(f"""
        import lamina
        from lamina.highlevel.saving.errors import UnsupportedFormatError
        for load in (lamina.load_model, lamina.Sequential([lamina.layers.Input((8,)),
                lamina.layers.Dense(16), lamina.layers.Dropout(0.1),
                lamina.layers.Dense(3)]).load_weights):
            try:
                load({str(path)!r})
            except UnsupportedFormatError as error:
                assert "external file" in str(error), error
            else:
                raise SystemExit("loaded")
        print("refused")
    """)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_as_the_checkpoint_itself_is_refused(tmp_path):
    fifo = tmp_path / "pipe.h5"
    os.mkfifo(fifo)
    assert "refused" in run_isolated(f"""
        import lamina
        from lamina.highlevel.saving.errors import NotHDF5Error
        try:
            lamina.load_model({str(fifo)!r})
        except NotHDF5Error as error:
            assert "not a regular file" in str(error), error
            print("refused")
    """)


def test_external_links_are_never_followed(tmp_path):
    other = tmp_path / "secret.h5"
    with h5py.File(other, "w") as handle:
        handle["data"] = np.full((16,), 7.0, "float32")
    path = keras_file(tmp_path)
    with h5py.File(path, "r+") as handle:
        del handle[BIAS]
        handle[BIAS] = h5py.ExternalLink(str(other), "/data")
    with pytest.raises(UnsupportedFormatError, match="bias is an external link"):
        lamina.load_model(path)


def test_soft_links_may_not_leave_the_file(tmp_path):
    other = tmp_path / "secret.h5"
    with h5py.File(other, "w") as handle:
        handle.create_group("g")["data"] = np.full((16,), 7.0, "float32")
    path = keras_file(tmp_path)
    with h5py.File(path, "r+") as handle:
        del handle[BIAS]
        handle["elsewhere"] = h5py.ExternalLink(str(other), "/g")
        handle[BIAS] = h5py.SoftLink("/elsewhere/data")
    with pytest.raises(UnsupportedFormatError, match="link"):
        lamina.load_model(path)
    inside = keras_file(tmp_path, "inside.h5")
    with h5py.File(inside, "r+") as handle:
        handle["copy_of_bias"] = handle[BIAS][()]
        del handle[BIAS]
        handle[BIAS] = h5py.SoftLink("/copy_of_bias")            # stays in the file: fine
    assert lamina.load_model(inside).predict(KERAS_X, verbose=0).shape == (1, 3)


def test_virtual_datasets_are_refused(tmp_path):
    other = tmp_path / "source.h5"
    with h5py.File(other, "w") as handle:
        handle["data"] = np.full((16,), 7.0, "float32")
    path = keras_file(tmp_path)
    layout = h5py.VirtualLayout(shape=(16,), dtype="float32")
    layout[:] = h5py.VirtualSource(str(other), "data", shape=(16,))
    with h5py.File(path, "r+") as handle:
        del handle[BIAS]
        handle.create_virtual_dataset(BIAS, layout)
    with pytest.raises(UnsupportedFormatError, match="bias is a virtual dataset"):
        lamina.load_model(path)


def test_unwritten_compressed_chunks_cannot_make_a_memory_bomb(tmp_path):
    path = keras_file(tmp_path)
    replace_bias(path, shape=(64_000_000,), dtype="float32", chunks=(1 << 20,),
                 compression="gzip")                      # 256 MB declared, nothing stored
    assert path.stat().st_size < 100_000
    with pytest.raises(CorruptFileError, match="bias.*stores only"):
        lamina.load_model(path)


def test_really_compressed_weights_still_load(tmp_path):
    path = keras_file(tmp_path)
    reference = lamina.load_model(path).predict(KERAS_X, verbose=0)
    with h5py.File(path, "r+") as handle:
        bias = handle[BIAS][()]
    replace_bias(path, data=bias, chunks=(4,), compression="gzip")
    np.testing.assert_array_equal(lamina.load_model(path).predict(KERAS_X, verbose=0), reference)


def test_datasets_declaring_more_than_the_file_are_refused(tmp_path):
    path = keras_file(tmp_path)
    replace_bias(path, shape=(50_000_000,), dtype="float32")      # contiguous, unwritten
    with pytest.raises(CorruptFileError, match="bias.*beyond the end of the file"):
        lamina.load_model(path)


def test_a_user_block_before_the_hdf5_data_is_accepted(tmp_path):
    model = lamina.Sequential([lamina.layers.Input((4,)), lamina.layers.Dense(2)])
    plain = tmp_path / "plain.h5"
    model.save(plain)
    path = tmp_path / "with_user_block.h5"
    with h5py.File(path, "w", userblock_size=1024) as handle, h5py.File(plain) as source:
        for key, value in source.attrs.items():
            handle.attrs[key] = value
        for name in source:
            source.copy(source[name], handle, name)
    with open(path, "r+b") as handle:
        handle.write(b"user block text, not HDF5")
    x = np.ones((1, 4), "float32")
    expected = model.predict(x, verbose=0)
    np.testing.assert_array_equal(lamina.load_model(path).predict(x, verbose=0), expected)
    np.testing.assert_array_equal(
        lamina.load_model(path.read_bytes()).predict(x, verbose=0), expected)
    twin = lamina.Sequential([lamina.layers.Input((4,)), lamina.layers.Dense(2)])
    twin.load_weights(path)
    np.testing.assert_array_equal(twin.predict(x, verbose=0), expected)

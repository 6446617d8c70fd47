"""file_integrity's guarded reading: a checkpoint must be self-contained (no external
raw storage, external link, virtual dataset or soft link leaving the file) and declare
no more data than the file holds; refused before any data is read. HDF5 user blocks are
accepted."""

import os
import shutil
import subprocess
import sys
import textwrap

import h5py
import numpy as np
import pytest

import lamina
from lamina.highlevel.saving.errors import CorruptFileError, UnsupportedFormatError

KERAS_MLP = os.path.join(os.path.dirname(__file__), "..", "data", "keras", "keras_mlp.h5")
BIAS = "model_weights/hidden/mlp/hidden/bias"           # (16,) float32
X = np.ones((1, 8), "float32")


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
    assert lamina.load_model(inside).predict(X, verbose=0).shape == (1, 3)


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
    reference = lamina.load_model(path).predict(X, verbose=0)
    with h5py.File(path, "r+") as handle:
        bias = handle[BIAS][()]
    replace_bias(path, data=bias, chunks=(4,), compression="gzip")
    np.testing.assert_array_equal(lamina.load_model(path).predict(X, verbose=0), reference)


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

"""The ``.keras`` container's guards: truncated, damaged and hostile archives raise the
documented :class:`CheckpointError` subclasses naming the file, before a member is read
(path traversal, unexpected or duplicate members, zip bombs, size caps)."""

import struct
import warnings
import zipfile

import pytest

import lamina
from lamina.highlevel.saving import keras_archive
from lamina.saving import (CheckpointError, CheckpointNotFoundError, CorruptFileError,
                           MissingConfigError, TruncatedFileError, UnsupportedFormatError)

GOOD = [("metadata.json", b"{}"), ("config.json", b"{}"), ("model.weights.h5", b"x" * 64)]


@pytest.fixture
def saved(tmp_path):
    model = lamina.Sequential([lamina.Input((3,)), lamina.layers.Dense(2)])
    model.save(tmp_path / "m.keras")
    return tmp_path / "m.keras"


def write(path, entries, compression=zipfile.ZIP_STORED):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")                     # zipfile: duplicate name
        with zipfile.ZipFile(path, "w", compression=compression) as archive:
            for name, value in entries:
                archive.writestr(name, value)
    return path


def patch_central_sizes(path, member, compressed=None, uncompressed=None, flags=None):
    """Rewrite sizes / flags of ``member`` in the central directory (not the data)."""
    raw = bytearray(path.read_bytes())
    start = raw.index(b"PK\x01\x02")
    while True:
        name_length = struct.unpack_from("<H", raw, start + 28)[0]
        if raw[start + 46:start + 46 + name_length] == member.encode():
            break
        extra, comment = struct.unpack_from("<HH", raw, start + 30)
        start = raw.index(b"PK\x01\x02", start + 46 + name_length + extra + comment)
    if flags is not None:
        struct.pack_into("<H", raw, start + 8, flags)
    if compressed is not None:
        struct.pack_into("<I", raw, start + 20, compressed)
    if uncompressed is not None:
        struct.pack_into("<I", raw, start + 24, uncompressed)
    path.write_bytes(bytes(raw))


def test_a_truncated_archive_names_the_file(saved):
    data = saved.read_bytes()
    for keep in (len(data) - 10, len(data) // 2, 30):
        saved.write_bytes(data[:keep])
        with pytest.raises(TruncatedFileError, match="m.keras.*truncated") as error:
            lamina.load_model(saved)
        assert error.value.path == str(saved)


def test_not_a_zip_missing_and_folder(tmp_path):
    (tmp_path / "h.keras").write_bytes(b"\x89HDF\r\n\x1a\n" + b"\0" * 100)
    with pytest.raises(CorruptFileError, match="h.keras. is not a zip archive"):
        lamina.load_model(tmp_path / "h.keras")
    with pytest.raises(CheckpointNotFoundError):
        lamina.load_model(tmp_path / "missing.keras")
    (tmp_path / "d.keras").mkdir()
    with pytest.raises(CorruptFileError, match="not a regular file"):
        lamina.load_model(tmp_path / "d.keras")


@pytest.mark.parametrize("name", ["../evil.json", "/etc/passwd", "a/../../b", "C:\\x",
                                  "assets\\..\\x"])
def test_path_traversal_members_are_refused(tmp_path, name):
    path = write(tmp_path / "m.keras", GOOD + [(name, b"x")])
    with pytest.raises(CorruptFileError, match="path traversal"):
        keras_archive.read_archive(path)


def test_unexpected_duplicate_and_missing_members(tmp_path):
    with pytest.raises(UnsupportedFormatError, match="unexpected archive member 'extra.py'"):
        keras_archive.read_archive(write(tmp_path / "a.keras", GOOD + [("extra.py", b"")]))
    with pytest.raises(CorruptFileError, match="appears twice"):
        keras_archive.read_archive(write(tmp_path / "b.keras", GOOD + [GOOD[1]]))
    with pytest.raises(MissingConfigError, match="no config.json"):
        keras_archive.read_archive(write(tmp_path / "c.keras", [GOOD[0], GOOD[2]]))
    with pytest.raises(CorruptFileError, match="no model.weights.h5"):
        keras_archive.read_archive(write(tmp_path / "d.keras", GOOD[:2]))
    many = [(f"x{i}", b"") for i in range(keras_archive.MAX_ENTRIES + 1)]
    with pytest.raises(CorruptFileError, match="lists"):
        keras_archive.read_archive(write(tmp_path / "e.keras", many))


def test_zip_bombs_and_lying_sizes_are_refused_before_reading(tmp_path):
    path = write(tmp_path / "bomb.keras", GOOD[:2] + [("model.weights.h5", b"\0" * 100_000)],
                 compression=zipfile.ZIP_DEFLATED)
    info = zipfile.ZipFile(path).getinfo("model.weights.h5")
    patch_central_sizes(path, "model.weights.h5", uncompressed=info.compress_size * 5000)
    with pytest.raises(CorruptFileError, match="zip bomb"):
        keras_archive.read_archive(path)
    path = write(tmp_path / "stored.keras", GOOD)
    patch_central_sizes(path, "model.weights.h5", uncompressed=1 << 20)
    with pytest.raises(CorruptFileError, match="stored uncompressed but declares"):
        keras_archive.read_archive(path)
    path = write(tmp_path / "big.keras", GOOD)
    patch_central_sizes(path, "model.weights.h5", compressed=1 << 30, uncompressed=1 << 30)
    with pytest.raises(TruncatedFileError, match="more than the whole file"):
        keras_archive.read_archive(path)


def test_the_size_caps(tmp_path, monkeypatch):
    monkeypatch.setattr(keras_archive, "JSON_LIMIT", 10)
    path = write(tmp_path / "m.keras", [("config.json", b"{" + b" " * 20 + b"}")] + GOOD[2:])
    with pytest.raises(CorruptFileError, match="over the limit of 10 bytes"):
        keras_archive.read_archive(path)


def test_damaged_member_data_and_encryption(tmp_path):
    path = write(tmp_path / "crc.keras", GOOD)
    raw = bytearray(path.read_bytes())
    raw[raw.index(b"x" * 64)] = ord("y")
    path.write_bytes(bytes(raw))
    with pytest.raises(CorruptFileError, match="cannot be read.*CRC"):
        keras_archive.read_archive(path)
    path = write(tmp_path / "enc.keras", GOOD)
    patch_central_sizes(path, "config.json", flags=0x1)
    with pytest.raises(UnsupportedFormatError, match="encrypted"):
        keras_archive.read_archive(path)


def test_every_error_is_a_checkpoint_error_and_a_value_error():
    assert issubclass(TruncatedFileError, CheckpointError)
    assert issubclass(CheckpointError, ValueError)


def test_is_keras_zip():
    assert keras_archive.is_keras_zip("anything.keras")
    assert keras_archive.is_keras_zip(keras_archive.archive_bytes(GOOD))
    assert not keras_archive.is_keras_zip(b"\x89HDF\r\n\x1a\n")
    assert not keras_archive.is_keras_zip("/no/such/file.h5")

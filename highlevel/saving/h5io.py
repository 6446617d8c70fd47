"""Durable HDF5 files: atomic writes, checksums, and guarded reading.

* :func:`h5_writer` writes to a temporary file in the destination's folder and moves it
  over the destination with ``os.replace`` only once the file is complete and flushed to
  disk, so an interrupted save never destroys the previous file. ``path=None`` writes to
  memory instead (see :func:`h5_bytes_writer`).
* Checksums: ``sha256`` of every weight dataset (dtype name, shape and little-endian bytes)
  and of the JSON attributes. lamina stores them as attributes (``lamina_sha256`` on each
  dataset, ``lamina_checksums`` at the root) and verifies them when it reads a lamina file;
  files from other writers (Keras) have none and are read without the check.
* :func:`open_h5` opens a path or bytes for reading and turns every failure into one of the
  documented :mod:`checkpoint_errors`; :func:`read_array` reads one dataset after checking
  that its declared size fits in the file (a corrupted shape cannot trigger a huge
  allocation). Nothing here unpickles or evaluates anything.
"""

import contextlib
import hashlib
import io
import json
import os
import uuid

import h5py
import numpy as np

from .errors import (CheckpointError, CorruptFileError, NotHDF5Error, TruncatedFileError,
                     UnsupportedFormatError, describe)

HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"
ZIP_SIGNATURE = b"PK\x03\x04"
DATASET_CHECKSUM_ATTR = "lamina_sha256"
CHECKSUMS_ATTR = "lamina_checksums"


class CheckpointNotFoundError(NotHDF5Error, FileNotFoundError):
    """The checkpoint file does not exist (also a ``FileNotFoundError``)."""


# ---------------------------------------------------------------------------- checksums
def array_checksum(array):
    """sha256 hex digest of an array's dtype name, shape and little-endian bytes."""
    array = np.asarray(array)
    if array.dtype.byteorder not in ("=", "|", "<"):
        array = array.astype(array.dtype.newbyteorder("<"))
    array = np.ascontiguousarray(array)
    digest = hashlib.sha256(f"{array.dtype.name}|{tuple(array.shape)}|".encode())
    digest.update(array.tobytes())
    return digest.hexdigest()


def text_checksum(text):
    """sha256 hex digest of a string's UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _digest(value):
    if value is None:
        return None
    if not isinstance(value, str):
        value = json.dumps(value, sort_keys=True)
    return text_checksum(value)


def checksums_attr(parts):
    """The root ``lamina_checksums`` attribute: JSON ``{part: sha256}`` of each part (a
    string such as the model config JSON, or a JSON-able structure of names)."""
    return json.dumps({key: _digest(value) for key, value in parts.items()}, sort_keys=True)


def verify_checksums(opened, parts):
    """Check ``parts`` (as given to :func:`checksums_attr`) against the file's stored
    checksums; CorruptFileError on any difference or missing entry."""
    text = read_text_attr(opened, opened.handle, CHECKSUMS_ATTR, required=True)
    try:
        stored = json.loads(text)
    except ValueError:
        stored = None
    if not isinstance(stored, dict):
        raise CorruptFileError(f"{opened.name}: unreadable {CHECKSUMS_ATTR} attribute",
                               opened.path)
    for key, value in parts.items():
        if key not in stored:
            raise CorruptFileError(f"{opened.name}: no stored checksum for {key}",
                                   opened.path)
        if stored[key] != _digest(value):
            raise CorruptFileError(f"{opened.name}: checksum mismatch for {key}: the file "
                                   "is corrupted", opened.path)


# ---------------------------------------------------------------------------- writing
def write_array(group, name, array, checksum=True):
    """Create dataset ``name`` (which may contain ``/``) in ``group`` holding ``array``
    (contiguous, uncompressed, as Keras writes), with its checksum attribute."""
    array = np.asarray(array)
    dataset = group.create_dataset(name, shape=array.shape, dtype=array.dtype)
    if array.shape:
        dataset[...] = array
    else:
        dataset[()] = array
    if checksum:
        write_text_attr(dataset, DATASET_CHECKSUM_ATTR, array_checksum(array))
    return dataset


def write_text_attr(obj, name, text):
    """A string attribute stored as fixed-length UTF-8 bytes (as Keras writes its JSON
    attributes): reading it never follows heap pointers, which corrupted variable-length
    strings can turn into crashes inside libhdf5."""
    obj.attrs[name] = np.bytes_(text.encode("utf-8") or b"\0")


@contextlib.contextmanager
def h5_writer(path, overwrite=True):
    """Yield an ``h5py.File`` open for writing whose content replaces ``path`` atomically
    when the block ends without an exception (and is discarded otherwise)."""
    path = os.fspath(path)
    if not overwrite and os.path.exists(path):
        raise FileExistsError(f"{path} exists and overwrite=False")
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    temporary = os.path.join(folder, f".{os.path.basename(path)}.{uuid.uuid4().hex[:12]}.tmp")
    try:
        with h5py.File(temporary, "w-") as handle:
            yield handle
            handle.flush()
        _fsync(temporary)
        os.replace(temporary, path)
        _fsync_folder(folder)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(temporary)
        raise


class _BytesResult:
    """Holds the bytes written by :func:`h5_bytes_writer` once its block has ended."""

    data = None


@contextlib.contextmanager
def h5_bytes_writer():
    """Yield ``(h5py.File, result)`` writing to memory; ``result.data`` holds the file's
    bytes after the block."""
    buffer = io.BytesIO()
    result = _BytesResult()
    with h5py.File(buffer, "w") as handle:
        yield handle, result
    result.data = buffer.getvalue()


def _fsync(path):
    with open(path, "rb+") as handle:
        os.fsync(handle.fileno())


def _fsync_folder(folder):
    if not hasattr(os, "O_DIRECTORY"):
        return
    with contextlib.suppress(OSError):
        descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


# ---------------------------------------------------------------------------- reading
class OpenedFile:
    """An ``h5py.File`` open for reading plus what the reader needs to guard sizes."""

    def __init__(self, handle, path, size):
        self.handle = handle
        self.path = path            # None for in-memory bytes
        self.size = size            # bytes in the file
        self.strict = False         # a lamina file: checksums and attribute types enforced

    @property
    def name(self):
        return describe(self.path)

    def close(self):
        with contextlib.suppress(Exception):
            self.handle.close()


def open_h5(source):
    """Open ``source`` (a path or ``bytes``) for reading, checking that it is HDF5 first.

    Raises:
        CheckpointNotFoundError, NotHDF5Error, UnsupportedFormatError (a zip archive such
        as a ``.keras`` file), TruncatedFileError, CorruptFileError.
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        _check_signature(data[:8], None)
        return _open(lambda: h5py.File(io.BytesIO(data), "r"), None, len(data))
    path = os.fspath(source)
    if not os.path.exists(path):
        raise CheckpointNotFoundError(f"no checkpoint file at {describe(path)}", path)
    if os.path.isdir(path):
        raise NotHDF5Error(f"{describe(path)} is a folder, not an HDF5 file", path)
    with open(path, "rb") as handle:
        _check_signature(handle.read(8), path)
    return _open(lambda: h5py.File(path, "r"), path, os.path.getsize(path))


def _check_signature(head, path):
    if head.startswith(ZIP_SIGNATURE):
        raise UnsupportedFormatError(
            f"{describe(path)} is a zip archive (Keras' .keras format), which lamina does not "
            "read; save it from Keras with model.save('x.h5') or "
            "model.save_weights('x.weights.h5')", path)
    if head != HDF5_SIGNATURE:
        raise NotHDF5Error(f"{describe(path)} is not an HDF5 file (no HDF5 signature at its "
                           "start)", path)


def _open(opener, path, size):
    try:
        handle = opener()
    except Exception as error:  # h5py reports every open failure as OSError (or worse)
        message = str(error)
        if "truncated" in message.lower() or "eof" in message.lower():
            raise TruncatedFileError(f"{describe(path)} is truncated (its end is missing): "
                                     f"{message}", path) from None
        if "signature" in message.lower():
            raise NotHDF5Error(f"{describe(path)} is not an HDF5 file: {message}",
                               path) from None
        raise CorruptFileError(f"{describe(path)} cannot be opened as HDF5: {message}",
                               path) from None
    return OpenedFile(handle, path, size)


def read_array(opened, dataset, where, verify):
    """The array of ``dataset`` as NumPy, checked against its checksum when ``verify``.

    ``where`` describes the weight in messages (layer and weight name).
    """
    if not isinstance(dataset, h5py.Dataset):
        raise CorruptFileError(f"{opened.name}: {where} is not a dataset", opened.path)
    dtype = dataset.dtype
    if dtype.kind not in "fiub":
        raise CorruptFileError(f"{opened.name}: {where} has non-numeric dtype {dtype}",
                               opened.path)
    nbytes = int(np.prod(dataset.shape, dtype=np.float64)) * dtype.itemsize
    if dataset.compression is None and nbytes > opened.size:
        raise CorruptFileError(
            f"{opened.name}: {where} declares shape {dataset.shape} ({nbytes} bytes), more "
            f"than the whole file ({opened.size} bytes)", opened.path)
    array = np.asarray(dataset[()])
    if not verify and "dtype" in dataset.attrs and \
            read_text_attr(opened, dataset, "dtype") == "bfloat16":
        array = (array.astype(np.uint32) << 16).view(np.float32)
    if verify:
        stored = read_text_attr(opened, dataset, DATASET_CHECKSUM_ATTR)
        if stored is None:
            raise CorruptFileError(f"{opened.name}: {where} has no checksum (a lamina file "
                                   "stores one for every weight)", opened.path)
        if stored != array_checksum(array):
            raise CorruptFileError(f"{opened.name}: checksum mismatch for {where}: the file "
                                   "is corrupted", opened.path)
    return array


def _check_attr_type(opened, obj, name, classes):
    """Check an attribute's stored type before reading its value: its class must be one
    of ``classes`` (``h5py.h5t`` class constants), and in a lamina file strings must be
    fixed-length (lamina writes no other kind, and a corrupted variable-length string can
    crash libhdf5 when read)."""
    type_id = obj.attrs.get_id(name).get_type()
    type_class = type_id.get_class()
    if type_class not in classes:
        raise CorruptFileError(f"{opened.name}: attribute {name!r} of {obj.name} has an "
                               "unexpected type", opened.path)
    if type_class == h5py.h5t.STRING and opened.strict and type_id.is_variable_str():
        raise CorruptFileError(f"{opened.name}: attribute {name!r} of {obj.name} is a "
                               "variable-length string, which lamina never writes",
                               opened.path)


def read_int_attr(opened, obj, name):
    """An integer attribute, or None when absent."""
    if name not in obj.attrs:
        return None
    _check_attr_type(opened, obj, name, (h5py.h5t.INTEGER,))
    value = np.asarray(obj.attrs[name])
    if value.size != 1:
        raise CorruptFileError(f"{opened.name}: attribute {name!r} is not a single integer",
                               opened.path)
    return int(value.reshape(()))


def read_text_attr(opened, obj, name, required=False):
    """A string attribute (``str`` or UTF-8 ``bytes``) or None when absent."""
    if name not in obj.attrs:
        if required:
            raise CorruptFileError(f"{opened.name}: attribute {name!r} is missing",
                                   opened.path)
        return None
    _check_attr_type(opened, obj, name, (h5py.h5t.STRING,))
    value = obj.attrs[name]
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value[()]
    if isinstance(value, bytes):
        try:
            value = value.decode("utf-8")
        except UnicodeDecodeError:
            raise CorruptFileError(f"{opened.name}: attribute {name!r} is not valid UTF-8",
                                   opened.path) from None
    if not isinstance(value, str):
        raise CorruptFileError(f"{opened.name}: attribute {name!r} is not a string",
                               opened.path)
    return value


def read_name_list(opened, obj, name):
    """A list-of-strings attribute, also when Keras split it into ``name0``, ``name1``...
    (lists over 64 KB); ``[]`` when absent. An empty float array means "no names"."""
    if name in obj.attrs:
        keys = [name]
    else:
        keys = []
        while f"{name}{len(keys)}" in obj.attrs:
            keys.append(f"{name}{len(keys)}")
    chunks = []
    for key in keys:
        _check_attr_type(opened, obj, key, (h5py.h5t.STRING, h5py.h5t.FLOAT))
        chunks.append(obj.attrs[key])
    names = []
    for chunk in chunks:
        values = np.atleast_1d(np.asarray(chunk))
        if values.size and values.dtype.kind not in "OSU":
            raise CorruptFileError(f"{opened.name}: attribute {name!r} of {obj.name} is "
                                   "not a list of names", opened.path)
        for value in values.tolist():
            if isinstance(value, bytes):
                try:
                    value = value.decode("utf-8")
                except UnicodeDecodeError:
                    raise CorruptFileError(f"{opened.name}: attribute {name!r} of "
                                           f"{obj.name} is not valid UTF-8",
                                           opened.path) from None
            names.append(str(value))
    return names


def write_name_list(obj, name, names):
    """Write a list of strings as Keras does (UTF-8 bytes; an empty list is an empty
    float64 array, split into ``name0``, ``name1``, ... past 64 KB)."""
    encoded = [n.encode("utf-8") for n in names]
    if not encoded:
        obj.attrs[name] = np.zeros((0,), dtype="float64")
        return
    array = np.asarray(encoded)
    limit = 64512
    chunks = 1
    parts = [array]
    while any(part.nbytes > limit for part in parts):
        chunks += 1
        parts = np.array_split(array, chunks)
    if chunks == 1:
        obj.attrs[name] = array
    else:
        for index, part in enumerate(parts):
            obj.attrs[f"{name}{index}"] = part


def guarded(opened, action, what):
    """Run ``action()`` turning any low-level read failure into a CorruptFileError that
    names the file and ``what`` was being read (documented errors pass through)."""
    try:
        return action()
    except CheckpointError:
        raise
    except (MemoryError, RecursionError) as error:
        raise CorruptFileError(f"{opened.name}: cannot read {what}: {type(error).__name__}",
                               opened.path) from None
    except Exception as error:
        raise CorruptFileError(f"{opened.name}: cannot read {what}: "
                               f"{type(error).__name__}: {error}", opened.path) from None


__all__ = ["CHECKSUMS_ATTR", "CheckpointNotFoundError", "DATASET_CHECKSUM_ATTR", "OpenedFile",
           "array_checksum", "checksums_attr", "guarded", "h5_bytes_writer", "h5_writer",
           "open_h5", "read_array", "read_int_attr", "read_name_list", "read_text_attr",
           "text_checksum", "verify_checksums", "write_array", "write_name_list",
           "write_text_attr"]

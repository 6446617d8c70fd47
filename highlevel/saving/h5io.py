"""Durable HDF5 files: atomic writes, checksums, and guarded reading.

* :func:`h5_writer` builds the file in memory (HDF5 1.8 format, :data:`FILE_FORMAT`) and
  hands its bytes to :func:`atomic_write.write_atomically`, which replaces the destination
  only once the new file is complete and flushed to disk, so an interrupted save never
  destroys the previous file; :func:`h5_bytes_writer` gives the bytes themselves.
* Checksums: ``sha256`` of every weight dataset (dtype name, shape and little-endian bytes)
  and of the JSON attributes. lamina stores them as attributes (``lamina_sha256`` on each
  dataset, ``lamina_checksums`` at the root) and verifies them when it reads a lamina file;
  files from other writers (Keras) have none and are read without the check.
* :func:`open_h5` opens a path or bytes for reading (a user block before the HDF5 data is
  fine), turns every failure into one of the documented :mod:`checkpoint_errors`, and runs
  :func:`inspect_file` before anything else is read: the checkpoint must be
  self-contained (no external link, external raw storage or virtual dataset; soft links
  only to objects of the same file) and its datasets must declare no more data than the
  file can hold (see :data:`MAX_COMPRESSION_RATIO`), so neither a hostile nor a corrupted
  file can make lamina read another file (``/proc/self/environ``, a FIFO) or allocate far
  more memory than the file's size. :func:`read_array` then reads one dataset. Nothing
  here unpickles or evaluates anything.
"""

import contextlib
import hashlib
import importlib
import importlib.util
import io
import json
import os
import sys

import numpy as np

from . import atomic_write
from .errors import (CheckpointError, CorruptFileError, NotHDF5Error, TruncatedFileError,
                     UnsupportedFormatError, describe)


def _lazy_module(name):
    """Module ``name``, loaded on its first attribute access (``importlib.util.LazyLoader``)
    unless it is loaded already: ``import lamina`` then does not load h5py and HDF5 (about
    12 MB of memory) in a process that never reads or writes a file."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None:
        return importlib.import_module(name)          # raises ModuleNotFoundError
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module


h5py = _lazy_module("h5py")

HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"
ZIP_SIGNATURE = b"PK\x03\x04"
DATASET_CHECKSUM_ATTR = "lamina_sha256"
CHECKSUMS_ATTR = "lamina_checksums"
# A compressed dataset may declare at most this many bytes per byte it stores: deflate's
# best case is about 1032:1, so a real gzip/lzf dataset always fits, while unwritten chunks
# (read back as the fill value) cannot turn a small file into a huge allocation.
MAX_COMPRESSION_RATIO = 1100


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


def bytes_checksum(data):
    """sha256 hex digest of bytes (a member of a ``.keras`` archive)."""
    return hashlib.sha256(bytes(data)).hexdigest()


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


def verify_checksums(opened, parts, optional=()):
    """Check ``parts`` (as given to :func:`checksums_attr`) against the file's stored
    checksums; CorruptFileError on any difference or missing entry (entries named in
    ``optional``, which older lamina files lack, are checked when stored)."""
    text = read_text_attr(opened, opened.handle, CHECKSUMS_ATTR, required=True)
    try:
        stored = json.loads(text)
    except ValueError:
        stored = None
    if not isinstance(stored, dict):
        raise CorruptFileError(f"{opened.name}: unreadable {CHECKSUMS_ATTR} attribute",
                               opened.path)
    for key, value in parts.items():
        if key not in stored and key in optional:
            continue
        if key not in stored:
            raise CorruptFileError(f"{opened.name}: no stored checksum for {key}",
                                   opened.path)
        if stored[key] != _digest(value):
            raise CorruptFileError(f"{opened.name}: checksum mismatch for {key}: the file "
                                   "is corrupted", opened.path)


# ---------------------------------------------------------------------------- writing
NAME_LIMIT = 64512        # bytes of one name in a name list (Keras' attribute chunk size)


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


# HDF5 1.8's file format: object headers (v2, checksummed) that move attributes over 64 KB
# into dense storage, so a large model's model_config fits in one attribute as Keras
# writes and reads it; readable by every HDF5 since 1.8 (h5py's default is the 1.6
# format, which cannot hold such attributes).
FILE_FORMAT = ("v108", "v108")


@contextlib.contextmanager
def h5_writer(path, overwrite=True):
    """Yield an ``h5py.File`` open for writing whose content replaces ``path`` atomically
    when the block ends without an exception (and is discarded otherwise).

    The file is built in memory and written with plain OS calls by
    :func:`atomic_write.write_atomically`, so libhdf5 never meets a full disk (its error
    paths can crash on one) and a failed write raises ``OSError``."""
    path = os.fspath(path)
    if not overwrite and os.path.lexists(path):
        raise FileExistsError(f"{path} exists and overwrite=False")
    with h5_bytes_writer() as (handle, result):
        yield handle
    atomic_write.write_atomically(path, result.data, overwrite)


class _BytesResult:
    """Holds the bytes written by :func:`h5_bytes_writer` once its block has ended."""

    data = None


@contextlib.contextmanager
def h5_bytes_writer():
    """Yield ``(h5py.File, result)`` writing to memory; ``result.data`` holds the file's
    bytes after the block."""
    buffer = io.BytesIO()
    result = _BytesResult()
    with h5py.File(buffer, "w", libver=FILE_FORMAT) as handle:
        yield handle, result
    result.data = buffer.getvalue()


# ---------------------------------------------------------------------------- reading
class OpenedFile:
    """An ``h5py.File`` open for reading plus what the reader needs to guard sizes."""

    def __init__(self, handle, path, size):
        self.handle = handle        # checked by inspect_file when made by open_h5
        self.path = path            # None for in-memory bytes
        self.size = size            # bytes in the file
        self.strict = False         # a lamina file: checksums and attribute types enforced

    @property
    def name(self):
        return describe(self.path)

    def close(self):
        with contextlib.suppress(Exception):
            self.handle.close()


def open_h5(source, label=None):
    """Open ``source`` (a path or ``bytes``) for reading, checking that it is HDF5 first.
    ``label`` is the path that errors about in-memory bytes name (the ``.keras`` archive
    an inner weights file came from).

    Raises:
        CheckpointNotFoundError, NotHDF5Error, UnsupportedFormatError (a zip archive such
        as a ``.keras`` file), TruncatedFileError, CorruptFileError.
    """
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        _check_signature(io.BytesIO(data), len(data), label)
        return _open(lambda: h5py.File(io.BytesIO(data), "r"), label, len(data))
    path = os.fspath(source)
    if not os.path.exists(path):
        raise CheckpointNotFoundError(f"no checkpoint file at {describe(path)}", path)
    if os.path.isdir(path):
        raise NotHDF5Error(f"{describe(path)} is a folder, not an HDF5 file", path)
    if not os.path.isfile(path):    # a FIFO or device would block or never end
        raise NotHDF5Error(f"{describe(path)} is not a regular file (a pipe or device?)",
                           path)
    size = os.path.getsize(path)
    with open(path, "rb") as handle:
        _check_signature(handle, size, path)
    return _open(lambda: h5py.File(path, "r"), path, size)


def _check_signature(stream, size, path):
    """Find the HDF5 signature where HDF5 looks for it: at offset 0, or after a user block
    of 512, 1024, 2048, ... bytes."""
    head = stream.read(8)
    if head.startswith(ZIP_SIGNATURE):
        raise UnsupportedFormatError(
            f"{describe(path)} is a zip archive (Keras' .keras format), not an HDF5 file: "
            "read it with load_model or load_weights, which accept .keras files", path)
    offset = 512
    while head != HDF5_SIGNATURE and offset + 8 <= size:
        stream.seek(offset)
        head = stream.read(8)
        offset *= 2
    if head != HDF5_SIGNATURE:
        raise NotHDF5Error(f"{describe(path)} is not an HDF5 file (no HDF5 signature at its "
                           "start or after a user block)", path)


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
    opened = OpenedFile(handle, path, size)
    try:
        guarded(opened, lambda: inspect_file(opened), "the file's structure")
    except BaseException:
        opened.close()
        raise
    return opened


# ---------------------------------------------------------------------------- inspection
def inspect_file(opened):
    """Check every object of an open file without reading any data (see the module
    docstring): every link is a hard link or a soft link to an object of this file, no
    dataset is virtual or keeps its data outside the file, and the datasets' declared
    sizes fit in the file. UnsupportedFormatError / CorruptFileError naming the dataset."""
    seen = set()
    stack = [(opened.handle, "")]
    totals = [0, 0]             # declared bytes stored raw, stored bytes of chunked data
    while stack:
        group, prefix = stack.pop()
        for name in group:                       # link names: nothing is dereferenced
            where = f"{prefix}/{name}"
            kind = _link_type(group, name)
            if kind == h5py.h5l.TYPE_SOFT:
                _check_soft_link(opened, group, name, where)
                continue                         # its target is reached by a hard link
            if kind != h5py.h5l.TYPE_HARD:
                what = "an external link" if kind == h5py.h5l.TYPE_EXTERNAL else \
                    "a user-defined link"
                raise UnsupportedFormatError(
                    f"{opened.name}: {where} is {what} to outside the file; lamina only "
                    "reads self-contained checkpoints", opened.path)
            obj = group[name]
            if obj.id in seen:
                continue
            seen.add(obj.id)
            if isinstance(obj, h5py.Group):
                stack.append((obj, where))
            elif isinstance(obj, h5py.Dataset):
                _check_dataset(opened, obj, where, totals)
    if sum(totals) > opened.size:
        raise CorruptFileError(f"{opened.name}: its datasets declare {sum(totals)} bytes of "
                               f"data, more than the whole file ({opened.size} bytes)",
                               opened.path)


def _link_type(group, name):
    """The ``h5l`` type of link ``name`` in ``group`` (None when absent), found with
    H5Lexists / H5Lget_info, which never traverse the link itself."""
    encoded = name.encode("utf-8")
    if not group.id.links.exists(encoded):
        return None
    return group.id.links.get_info(encoded).type


def _check_soft_link(opened, group, name, where):
    """A soft link must lead, through hard links only, to an object of this file."""
    target = group.id.links.get_val(name.encode("utf-8")).decode("utf-8", "replace")
    current = opened.handle if target.startswith("/") else group
    for part in [p for p in target.split("/") if p not in ("", ".")]:
        if not isinstance(current, h5py.Group) or \
                _link_type(current, part) != h5py.h5l.TYPE_HARD:
            raise UnsupportedFormatError(
                f"{opened.name}: {where} is a soft link to {target!r}, which is not an "
                "object of this file reached through hard links; lamina only reads "
                "self-contained checkpoints", opened.path)
        current = current[part]


def _check_dataset(opened, dataset, where, totals):
    """Refuse external raw storage and virtual datasets; check declared vs stored sizes
    (``totals`` accumulates the bytes the file must hold)."""
    plist = dataset.id.get_create_plist()
    if plist.get_external_count():
        target = plist.get_external(0)[0].decode("utf-8", "replace")
        raise UnsupportedFormatError(
            f"{opened.name}: dataset {where} keeps its data in the external file "
            f"{target!r}; lamina never reads data from outside the checkpoint",
            opened.path)
    layout = plist.get_layout()
    if layout == h5py.h5d.VIRTUAL:
        raise UnsupportedFormatError(
            f"{opened.name}: dataset {where} is a virtual dataset (its data lives in other "
            "datasets or files); lamina only reads self-contained checkpoints", opened.path)
    if dataset.dtype.kind not in "fiub":
        return                                   # never read as a weight (read_array)
    declared = int(np.prod(dataset.shape, dtype=np.float64)) * dataset.dtype.itemsize
    if layout == h5py.h5d.CHUNKED:
        stored = dataset.id.get_storage_size()
        if declared > MAX_COMPRESSION_RATIO * max(stored, 1):
            raise CorruptFileError(
                f"{opened.name}: dataset {where} declares shape {dataset.shape} ({declared} "
                f"bytes) but stores only {stored} bytes (unwritten or implausibly "
                f"compressed chunks, more than {MAX_COMPRESSION_RATIO}:1)", opened.path)
        totals[1] += stored
        return
    offset = dataset.id.get_offset() if layout == h5py.h5d.CONTIGUOUS else None
    end = declared + (offset or 0)
    if end > opened.size:
        raise CorruptFileError(
            f"{opened.name}: dataset {where} declares shape {dataset.shape} ({declared} "
            f"bytes, ending at byte {end}), beyond the end of the file ({opened.size} "
            "bytes)", opened.path)
    totals[0] += declared


def read_array(opened, dataset, where, verify):
    """The array of ``dataset`` as NumPy, checked against its checksum when ``verify``.

    ``where`` describes the weight in messages (layer and weight name). Its size was
    checked against the file's by :func:`inspect_file` when the file was opened.
    """
    if not isinstance(dataset, h5py.Dataset):
        raise CorruptFileError(f"{opened.name}: {where} is not a dataset", opened.path)
    dtype = dataset.dtype
    if dtype.kind not in "fiub":
        raise CorruptFileError(f"{opened.name}: {where} has non-numeric dtype {dtype}",
                               opened.path)
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
    too_long = next((n for n in names if len(n.encode("utf-8")) > NAME_LIMIT), None)
    if too_long is not None:
        raise ValueError(f"cannot store {name} entry '{too_long[:40]}...' "
                         f"({len(too_long.encode('utf-8'))} bytes): HDF5 files (and Keras) "
                         f"take names of at most {NAME_LIMIT} bytes")
    array = np.asarray(encoded)
    limit = NAME_LIMIT
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
           "MAX_COMPRESSION_RATIO", "array_checksum", "bytes_checksum", "checksums_attr", "guarded",
           "h5_bytes_writer", "h5_writer", "inspect_file", "open_h5", "read_array", "read_int_attr", "read_name_list", "read_text_attr",
           "text_checksum", "verify_checksums", "write_array", "write_name_list",
           "write_text_attr"]

"""Reading and writing the zip container of a ``.keras`` file, guarded.

Writing builds the archive in memory (members stored uncompressed, as Keras writes them)
and publishes it with :func:`atomic_write.write_atomically`. Reading refuses, before any
member is read:

* a file that is not a zip archive, or that ends early (:class:`TruncatedFileError`: a zip
  keeps its directory at its end), or whose directory cannot be read;
* member names that are absolute, climb out of the archive (``..``), use backslashes or
  NUL characters, appear twice, or are neither one of :data:`MEMBERS` nor a file under
  ``assets/`` (Keras' layer assets, see :mod:`keras_assets`) with plain path components
  (path traversal and unexpected content);
* encrypted members, and members whose declared size is over their cap
  (:data:`JSON_LIMIT`, :data:`WEIGHTS_LIMIT`, :data:`ASSET_LIMIT`; all assets together
  :data:`ASSETS_LIMIT`), over :data:`MAX_COMPRESSION_RATIO` times their compressed size
  (a zip bomb), or, when stored, different from it.

A member is then read with a bounded read (at most its declared size) and zip's CRC-32
is checked; everything else a corrupted archive raises becomes :class:`CorruptFileError`
naming the file.
"""

import io
import os
import zipfile
import zlib

from . import atomic_write
from .errors import (CorruptFileError, MissingConfigError, TruncatedFileError,
                     UnsupportedFormatError, describe)
from .h5io import MAX_COMPRESSION_RATIO, ZIP_SIGNATURE, CheckpointNotFoundError

CONFIG = "config.json"
METADATA = "metadata.json"
WEIGHTS = "model.weights.h5"
MEMBERS = (METADATA, CONFIG, WEIGHTS)           # Keras' order
JSON_LIMIT = 1 << 28                            # 256 MiB of config or metadata JSON
WEIGHTS_LIMIT = 1 << 38                         # 256 GiB of weights
ASSETS = "assets/"                              # the folder of layer assets
ASSET_LIMIT = 1 << 28                           # 256 MiB per asset file (a vocabulary)
ASSETS_LIMIT = 1 << 30                          # 1 GiB of assets together
MAX_ENTRIES = 4096                              # directory entries read at all
_EMPTY_ARCHIVE = b"PK\x05\x06"


def is_keras_zip(source):
    """Whether ``source`` (a path or bytes) is to be read as a ``.keras`` archive: a path
    ending in ``.keras``, or a file / bytes starting with a zip signature."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source[:4]) in (ZIP_SIGNATURE, _EMPTY_ARCHIVE)
    path = os.fspath(source)
    if str(path).endswith(".keras"):
        return True
    try:
        if not os.path.isfile(path):
            return False
        with open(path, "rb") as handle:
            return handle.read(4) in (ZIP_SIGNATURE, _EMPTY_ARCHIVE)
    except OSError:
        return False


# ---------------------------------------------------------------------------- writing
def archive_bytes(members):
    """The bytes of a zip archive holding ``members`` (``[(name, bytes)]``), stored."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as archive:
        for name, data in members:
            archive.writestr(name, data)
    return buffer.getvalue()


def write_archive(path, members, overwrite=True):
    """Write the archive atomically (the previous file stays whole until it is done)."""
    path = os.fspath(path)
    if not overwrite and os.path.lexists(path):
        raise FileExistsError(f"{path} exists and overwrite=False")
    atomic_write.write_atomically(path, archive_bytes(members), overwrite)


# ---------------------------------------------------------------------------- reading
def _open_source(source):
    """``(file object, path, size)`` of a path or bytes, refusing missing, non-regular and
    non-zip files."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        return io.BytesIO(data), None, len(data)
    path = os.fspath(source)
    if not os.path.exists(path):
        raise CheckpointNotFoundError(f"no checkpoint file at {describe(path)}", path)
    if not os.path.isfile(path):
        raise CorruptFileError(f"{describe(path)} is not a regular file, so not a .keras "
                               "archive", path)
    return open(path, "rb"), path, os.path.getsize(path)


def _open_zip(stream, path, size):
    head = stream.read(4)
    stream.seek(0)
    try:
        return zipfile.ZipFile(stream, "r")
    except zipfile.BadZipFile as error:
        if head == ZIP_SIGNATURE:
            raise TruncatedFileError(f"{describe(path)} is truncated or damaged: its zip "
                                     f"directory is missing or unreadable ({error})",
                                     path) from None
        raise CorruptFileError(f"{describe(path)} is not a zip archive (a .keras file is "
                               f"one): {error}", path) from None
    except (OSError, ValueError, EOFError) as error:
        raise CorruptFileError(f"{describe(path)}: cannot read the zip directory: "
                               f"{type(error).__name__}: {error}", path) from None


def _check_name(name, path):
    parts = name.replace("\\", "/").split("/")
    if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":") or \
            "\\" in name or "\0" in name or ".." in parts:
        raise CorruptFileError(f"{describe(path)}: archive member {name[:80]!r} has an "
                               "absolute or climbing path; refused (path traversal)", path)
    if name not in MEMBERS and not is_asset(name):
        raise UnsupportedFormatError(
            f"{describe(path)}: unexpected archive member {name[:80]!r}; a .keras file "
            f"lamina reads holds only {', '.join(MEMBERS)} and files under {ASSETS} (npz "
            "weights are not supported)", path)


def is_asset(name):
    """Whether ``name`` is an asset member: ``assets/`` then non-empty path components
    other than ``.`` (a trailing ``/`` marks a folder entry)."""
    if name == ASSETS:
        return True
    parts = name[len(ASSETS):].split("/")
    if name.endswith("/"):
        parts = parts[:-1]
    return name.startswith(ASSETS) and bool(parts) and all(
        part not in ("", ".", "..") for part in parts)


def _check_sizes(info, size, path):
    limit = WEIGHTS_LIMIT if info.filename == WEIGHTS else ASSET_LIMIT if is_asset(
        info.filename) else JSON_LIMIT
    where = f"{describe(path)}: archive member {info.filename!r}"
    if info.flag_bits & 0x1:
        raise UnsupportedFormatError(f"{where} is encrypted", path)
    if info.compress_size > size:
        raise TruncatedFileError(f"{where} declares {info.compress_size} stored bytes, "
                                 f"more than the whole file ({size} bytes)", path)
    if info.file_size > limit:
        raise CorruptFileError(f"{where} declares {info.file_size} bytes, over the limit "
                               f"of {limit} bytes", path)
    if info.compress_type == zipfile.ZIP_STORED:
        if info.file_size != info.compress_size:
            raise CorruptFileError(f"{where} is stored uncompressed but declares "
                                   f"{info.file_size} bytes for {info.compress_size} "
                                   "stored", path)
    elif info.file_size > MAX_COMPRESSION_RATIO * max(info.compress_size, 1):
        raise CorruptFileError(f"{where} declares {info.file_size} bytes from "
                               f"{info.compress_size} compressed: refused as a zip bomb",
                               path)


def _read_member(archive, info, path):
    try:
        with archive.open(info, "r") as member:
            data = member.read(info.file_size + 1)
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError,
            NotImplementedError, RuntimeError) as error:
        raise CorruptFileError(f"{describe(path)}: archive member {info.filename!r} cannot "
                               f"be read: {type(error).__name__}: {error}", path) from None
    if len(data) != info.file_size:
        raise CorruptFileError(f"{describe(path)}: archive member {info.filename!r} holds "
                               f"{len(data)} bytes, its header declares {info.file_size}",
                               path)
    return data


def read_archive(source):
    """``({member name: bytes}, path)`` of a ``.keras`` archive, every check above done.
    ``config.json`` and ``model.weights.h5`` must be present; ``metadata.json`` is
    optional (Keras never reads it)."""
    stream, path, size = _open_source(source)
    try:
        archive = _open_zip(stream, path, size)
        with archive:
            infos = archive.infolist()
            if len(infos) > MAX_ENTRIES:
                raise CorruptFileError(f"{describe(path)}: the archive lists {len(infos)} "
                                       f"members, over the limit of {MAX_ENTRIES}", path)
            seen = set()
            for info in infos:
                _check_name(info.filename, path)
                if info.filename in seen:
                    raise CorruptFileError(f"{describe(path)}: archive member "
                                           f"{info.filename!r} appears twice", path)
                seen.add(info.filename)
                _check_sizes(info, size, path)
            assets = sum(info.file_size for info in infos if is_asset(info.filename))
            if assets > ASSETS_LIMIT:
                raise CorruptFileError(f"{describe(path)}: the archive's assets declare "
                                       f"{assets} bytes together, over the limit of "
                                       f"{ASSETS_LIMIT} bytes", path)
            if CONFIG not in seen:
                raise MissingConfigError(f"{describe(path)} has no {CONFIG}, so it holds no "
                                         "architecture", path)
            if WEIGHTS not in seen:
                raise CorruptFileError(f"{describe(path)} has no {WEIGHTS} member", path)
            return {info.filename: _read_member(archive, info, path) for info in infos}, path
    finally:
        stream.close()


__all__ = ["ASSETS", "ASSETS_LIMIT", "ASSET_LIMIT", "CONFIG", "JSON_LIMIT", "MAX_ENTRIES",
           "MEMBERS", "METADATA", "WEIGHTS", "WEIGHTS_LIMIT", "archive_bytes", "is_asset",
           "is_keras_zip", "read_archive", "write_archive"]

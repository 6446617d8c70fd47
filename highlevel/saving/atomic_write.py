"""Atomic, durable replacement of a file's content with bytes held in memory.

:func:`write_atomically` writes the bytes with plain ``os.write`` calls into a temporary
file next to the target, ``fsync``s it, and only then publishes it: ``os.replace`` when
overwriting, ``os.link`` (which fails if the target exists) when not, so of two processes
saving with ``overwrite=False`` exactly one wins. Readers see the old file or the complete
new one, never a part. A failed write (disk full, quota, permissions) raises ``OSError``
naming the file and removes the temporary file; a re-save keeps the target's permission
bits (and owner, where allowed) and writes through a symbolic link to the file it names,
as ``open(path, "w")`` does.

Temporary files are named ``.<target>.<random>.<pid>-<host>.tmp``. A save killed before it
published leaves one behind; the next save of the same target removes those whose writer
process is gone (same host) or that are older than :data:`STALE_AFTER_S`.
"""

import contextlib
import errno
import hashlib
import os
import re
import socket
import time
import uuid

STALE_AFTER_S = 3600          # a temporary file this old belongs to no running save
_BASE_CHARS = 100             # target name characters kept in a temporary file's name
_TEMPORARY = re.compile(r"^\.(?P<base>.*)\.[0-9a-f]{12}(?:\.(?P<pid>\d+)-(?P<host>[0-9a-f]{8}))?"
                        r"\.tmp$")
# errno values of file systems without hard links (FAT, some network shares).
_NO_HARD_LINKS = {errno.EPERM, errno.ENOSYS, errno.EOPNOTSUPP,
                  getattr(errno, "ENOTSUP", errno.EOPNOTSUPP), errno.EMLINK}


def _host_tag():
    return hashlib.sha256(socket.gethostname().encode("utf-8", "replace")).hexdigest()[:8]


def temporary_name(base):
    """The name of a new temporary file for target file name ``base``."""
    return f".{base[:_BASE_CHARS]}.{uuid.uuid4().hex[:12]}.{os.getpid()}-{_host_tag()}.tmp"


def _process_gone(pid):
    if os.name != "posix":            # os.kill(pid, 0) would terminate it on Windows
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:                   # exists, owned by someone else
        return False
    return False


def remove_stale_temporaries(folder, base, now=None):
    """Remove temporary files of target ``base`` in ``folder`` left by killed saves: their
    writer process (on this host) is gone, or they are older than STALE_AFTER_S."""
    now = time.time() if now is None else now
    host = _host_tag()
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        match = _TEMPORARY.match(name)
        if match is None or match["base"] != base[:_BASE_CHARS]:
            continue
        path = os.path.join(folder, name)
        with contextlib.suppress(OSError):
            dead = match["pid"] is not None and match["host"] == host and \
                _process_gone(int(match["pid"]))
            if dead or now - os.lstat(path).st_mtime > STALE_AFTER_S:
                os.remove(path)


def write_atomically(path, data, overwrite=True):
    """Make the file at ``path`` hold exactly ``data`` (bytes-like), atomically.

    Raises:
        FileExistsError: ``overwrite=False`` and the file exists (also when another
            process created it while this one was writing).
        OSError: the data could not be written (disk full, ...); the file at ``path`` is
            unchanged and no temporary file is left.
    """
    path = os.fspath(path)
    target = os.path.realpath(path)          # re-saving through a symlink writes its target
    if not overwrite and os.path.lexists(path):
        raise _exists(path)
    folder, base = os.path.split(target)
    os.makedirs(folder, exist_ok=True)
    remove_stale_temporaries(folder, base)
    temporary = os.path.join(folder, temporary_name(base))
    try:
        _write_file(temporary, data, target)
        if overwrite:
            os.replace(temporary, target)
        else:
            _link_new(temporary, target, path)
        _fsync_folder(folder)
    finally:
        with contextlib.suppress(OSError):
            os.remove(temporary)             # gone already after os.replace


def _write_file(temporary, data, target):
    """Write ``data`` into the new file ``temporary`` and fsync it; it takes the mode (and
    owner) of ``target`` when that exists."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | \
        getattr(os, "O_CLOEXEC", 0)
    descriptor = os.open(temporary, flags, 0o666)
    try:
        _copy_metadata(descriptor, temporary, target)
        view = memoryview(data).cast("B")
        while view:
            view = view[os.write(descriptor, view[:1 << 30]):]
        os.fsync(descriptor)
    except OSError as error:
        raise OSError(error.errno, f"cannot write {target}: {error.strerror or error}",
                      target) from error
    finally:
        os.close(descriptor)


def _copy_metadata(descriptor, temporary, target):
    try:
        status = os.stat(target)
    except FileNotFoundError:
        return
    if hasattr(os, "fchown"):
        with contextlib.suppress(OSError):
            if (status.st_uid, status.st_gid) != (os.getuid(), os.getgid()):
                os.fchown(descriptor, status.st_uid, status.st_gid)
    if hasattr(os, "fchmod"):
        os.fchmod(descriptor, status.st_mode & 0o7777)
    else:
        os.chmod(temporary, status.st_mode & 0o7777)


def _link_new(temporary, target, path):
    """Publish ``temporary`` as ``target`` only if ``target`` does not exist."""
    try:
        try:
            os.link(temporary, target)
        except FileExistsError:
            raise
        except OSError as error:
            if error.errno not in _NO_HARD_LINKS:
                raise
            # No hard links here: claim the name with an exclusive create, then replace
            # the empty placeholder.
            os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            os.replace(temporary, target)
    except FileExistsError:
        raise _exists(path) from None


def _exists(path):
    return FileExistsError(errno.EEXIST, f"{path} exists and overwrite=False", path)


def _fsync_folder(folder):
    if not hasattr(os, "O_DIRECTORY"):
        return
    with contextlib.suppress(OSError):
        descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


__all__ = ["STALE_AFTER_S", "remove_stale_temporaries", "temporary_name", "write_atomically"]

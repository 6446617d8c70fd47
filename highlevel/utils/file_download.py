"""``get_file`` as ``keras.utils.get_file``: download a file into the Keras cache
(``$KERAS_HOME`` or ``~/.keras``, the folder Keras uses, so the two share downloads), check
its hash, and optionally extract it safely (:mod:`archives`)."""

import hashlib
import os
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import warnings

from ..callbacks.callback import print_line
from ..callbacks.progbar import Progbar
from .archives import extract_archive

CHUNK_SIZE = 1 << 16


def cache_root(cache_dir=None):
    """The cache folder: ``cache_dir``, else ``$KERAS_HOME``, else ``~/.keras``; a folder
    that cannot be written falls back to ``<tmp>/.keras``, as Keras."""
    if cache_dir is None:
        cache_dir = os.environ.get("KERAS_HOME", os.path.join("~", ".keras"))
    root = os.path.expanduser(os.fspath(cache_dir))
    try:
        os.makedirs(root, exist_ok=True)
    except OSError:
        pass
    if not os.access(root, os.W_OK):
        root = os.path.join(tempfile.gettempdir(), ".keras")
    return root


def hash_file(fpath, algorithm="sha256", chunk_size=CHUNK_SIZE):
    """The hex digest of the file ``fpath``: ``algorithm`` is ``"sha256"``, ``"md5"`` or
    ``"auto"`` (sha256)."""
    hasher = hashlib.md5() if algorithm == "md5" else hashlib.sha256()
    with open(fpath, "rb") as file:
        for chunk in iter(lambda: file.read(chunk_size), b""):
            hasher.update(chunk)
    return hasher.hexdigest()


def _algorithm(hash_algorithm, file_hash):
    if hash_algorithm not in ("auto", "sha256", "md5"):
        raise ValueError(f"hash_algorithm must be 'auto', 'sha256' or 'md5', got "
                         f"{hash_algorithm!r}")
    if hash_algorithm == "auto":          # Keras: a 64-digit hash is sha256, else md5
        return "sha256" if file_hash is not None and len(file_hash) == 64 else "md5"
    return hash_algorithm


def validate_file(fpath, file_hash, algorithm="auto", chunk_size=CHUNK_SIZE):
    """True when the file's sha256 or md5 digest (``"auto"``: by the hash's length) is
    ``file_hash``."""
    return hash_file(fpath, _algorithm(algorithm, file_hash), chunk_size) == str(file_hash)


def _download(origin, target):
    """``origin`` downloaded into a temporary file in ``target``'s folder (with a progress
    bar); returns its path, for the caller to check and rename into place."""
    print_line(f"Downloading data from {origin}")   # logged without interactive logging
    handle, partial = tempfile.mkstemp(prefix=".downloading-", dir=os.path.dirname(target))
    try:
        with os.fdopen(handle, "wb") as out, urllib.request.urlopen(origin) as response:
            length = response.headers.get("Content-Length")
            progbar = Progbar(int(length) if length else None, unit_name="byte")
            done = 0
            for chunk in iter(lambda: response.read(CHUNK_SIZE), b""):
                out.write(chunk)
                done += len(chunk)
                progbar.update(done, finalize=False)
            progbar.update(done, finalize=True)
    except urllib.error.HTTPError as error:
        os.remove(partial)
        raise Exception(f"URL fetch failure on {origin}: {error.code} -- {error.msg}") \
            from error
    except urllib.error.URLError as error:
        os.remove(partial)
        raise Exception(f"URL fetch failure on {origin}: {error.errno} -- {error.reason}") \
            from error
    except BaseException:
        os.remove(partial)
        raise
    return partial


def get_file(fname=None, origin=None, untar=False, md5_hash=None, file_hash=None,
             cache_subdir="datasets", hash_algorithm="auto", extract=False,
             archive_format="auto", cache_dir=None, force_download=False):
    """Download a file from a URL unless it is already in the cache, as Keras.

    The file from ``origin`` lands in ``<cache_dir>/<cache_subdir>/<fname>`` (by default
    ``~/.keras/datasets/``). Downloads go to a temporary file renamed into place once
    complete and hash-checked, so a failed or corrupted download never replaces a cached
    file. Archives are extracted only if every member stays inside the extraction folder
    (no absolute paths, ``..`` or links leading out): an unsafe archive raises ValueError.

    Args:
        fname: the local file name (default: the last part of ``origin``'s path); with
            ``extract``, a name without extension names the extraction folder.
        origin: the URL (``https://``, ``http://``, ``file://``, ...).
        untar: deprecated, ``extract=True`` with ``archive_format="tar"``.
        md5_hash: deprecated, ``file_hash`` with ``hash_algorithm="md5"``.
        file_hash: the expected sha256 or md5 hex digest of the file.
        cache_subdir: the folder under the cache (an absolute path is used as is).
        hash_algorithm: ``"auto"`` (sha256 for a 64-digit hash, else md5), ``"sha256"``
            or ``"md5"``.
        extract: extract the (tar or zip) archive; the extraction folder is returned.
        archive_format: ``"auto"`` (tar then zip), ``"tar"``, ``"zip"`` or None.
        cache_dir: the cache folder (default ``$KERAS_HOME`` or ``~/.keras``).
        force_download: download even when the file is cached.

    Returns:
        The path of the file (or, with ``extract``, of the extraction folder).
    """
    if origin is None:
        raise ValueError('Please specify the "origin" argument (URL of the file to '
                         'download).')
    if md5_hash is not None and file_hash is None:
        file_hash, hash_algorithm = md5_hash, "md5"
    algorithm = _algorithm(hash_algorithm, file_hash)
    given = os.fspath(fname) if fname is not None else None
    if not given:
        fname = os.path.basename(urllib.parse.urlsplit(origin).path)
        if fname in ("", ".", ".."):    # ".." would name the cache's parent folder
            raise ValueError(f"Can't parse the file name from the origin provided: "
                             f"'{origin}'. Please specify the `fname` argument.")
    else:
        fname = given
        if os.sep in fname or "/" in fname or fname in (".", ".."):
            raise ValueError("Paths are no longer accepted as the `fname` argument. To "
                             "specify the file's parent directory, use the `cache_dir` "
                             f"argument. Received: fname={fname}")
    datadir = os.path.join(cache_root(cache_dir), cache_subdir)   # the arguments are valid
    os.makedirs(datadir, exist_ok=True)
    extract = extract or untar
    if extract and given and "." in fname:
        target = os.path.join(datadir, fname)
        extraction_dir = os.path.join(datadir, f"{fname[:fname.find('.')]}_extracted")
    elif extract:
        target = os.path.join(datadir, f"{fname}_archive")
        extraction_dir = os.path.join(datadir, fname)
    else:
        target = os.path.join(datadir, fname)

    download = force_download or not os.path.exists(target)
    if not download and file_hash is not None and not validate_file(target, file_hash,
                                                                    algorithm):
        print_line(f"A local file was found, but it seems to be incomplete or outdated "
                   f"because the {algorithm} file hash does not match the original value of "
                   f"{file_hash} so we will re-download the data.")
        download = True
    if download:
        partial = _download(origin, target)
        if file_hash is not None and not validate_file(partial, file_hash, algorithm):
            os.remove(partial)
            raise ValueError(f"Incomplete or corrupted file detected. The {algorithm} file "
                             f"hash does not match the provided value of {file_hash}.")
        os.replace(partial, target)

    if not extract:
        return target
    if download or not os.path.exists(extraction_dir):
        if not extract_archive(target, extraction_dir, "tar" if untar else archive_format):
            warnings.warn("Could not extract archive.", stacklevel=2)
    return extraction_dir

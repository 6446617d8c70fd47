"""Safe extraction of tar and zip archives (what ``get_file(extract=True)`` unpacks).

Every member is checked before anything is written: a member with an absolute path, a
``..`` component, a link whose target is absolute or climbs with ``..`` (so no link can
lead out of the extraction folder, whatever other links it passes through), or (tar) a
device file or FIFO makes the whole archive refused with a ValueError naming the member.
The archive is unpacked into a temporary folder beside the destination, then moved into
place file by file (one rename each), so an interrupted or refused extraction leaves no
partly written file behind. As with Keras' ``extractall``, files already in the
destination that the archive does not hold are kept; those it holds are replaced.
"""

import os
import re
import shutil
import tarfile
import tempfile
import zipfile

ARCHIVE_FORMATS = ("tar", "zip")


def _move_entries(source, destination):
    """Each entry of the folder ``source`` renamed into the folder ``destination``: a file
    (or link) of the same name steps aside first and is removed once the new one is in
    place; a folder present in both is merged the same way, so nothing the archive does
    not hold is lost."""
    names = os.listdir(source)
    aside = tempfile.mkdtemp(prefix=".previous-", dir=source)   # a name no entry has
    for name in names:
        entry, target = os.path.join(source, name), os.path.join(destination, name)
        if _is_folder(entry) and _is_folder(target):
            _move_entries(entry, target)
            continue
        if os.path.lexists(target):
            os.replace(target, os.path.join(aside, name))
        os.replace(entry, target)
    _remove(aside)


def _is_folder(entry):
    return os.path.isdir(entry) and not os.path.islink(entry)


def _remove(entry):
    """Delete ``entry`` (a folder tree, a file or a link) if it exists."""
    if _is_folder(entry):
        shutil.rmtree(entry)
    elif os.path.lexists(entry):
        os.remove(entry)


def _unsafe_path(name):
    """Why ``name`` may not be written under the extraction folder, or None."""
    if not name:
        return "an empty name"
    if name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name):
        return "an absolute path"
    if ".." in re.split(r"[/\\]", name):
        return "a '..' component"
    return None


def _check_tar_member(member):
    reason = _unsafe_path(member.name)
    if reason is None and (member.issym() or member.islnk()):
        target = _unsafe_path(member.linkname)
        reason = None if target is None else f"a link target with {target} " \
                                             f"({member.linkname!r})"
    if reason is None and not (member.isfile() or member.isdir() or member.issym()
                               or member.islnk()):
        reason = "a device file or FIFO"
    if reason is not None:
        raise ValueError(f"Refusing to extract the archive: member {member.name!r} has "
                         f"{reason}")


def _check_zip_member(info):
    reason = _unsafe_path(info.filename)
    if reason is not None:
        raise ValueError(f"Refusing to extract the archive: member {info.filename!r} has "
                         f"{reason}")


def _formats(archive_format):
    if archive_format is None:
        return []
    formats = list(ARCHIVE_FORMATS) if archive_format == "auto" else (
        [archive_format] if isinstance(archive_format, str) else list(archive_format))
    unknown = [f for f in formats if f not in ARCHIVE_FORMATS]
    if unknown:
        raise ValueError(f"archive_format must be 'auto', None, or one of {ARCHIVE_FORMATS} "
                         f"(or a list of them), got {archive_format!r}")
    return formats


def _extract_into(file_path, archive_type, folder):
    if archive_type == "tar":
        with tarfile.open(file_path) as archive:
            members = archive.getmembers()
            for member in members:
                _check_tar_member(member)
            # the "data" filter (Python >= 3.11.4) checks the same again as tarfile writes
            filter_args = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
            archive.extractall(folder, members=members, **filter_args)
    else:
        with zipfile.ZipFile(file_path) as archive:
            infos = archive.infolist()
            for info in infos:
                _check_zip_member(info)
            archive.extractall(folder, members=infos)


def extract_archive(file_path, path=".", archive_format="auto"):
    """Extract the tar (``.tar``, ``.tar.gz``, ``.tar.bz2``, ``.tar.xz``) or zip archive
    ``file_path`` into the folder ``path``, as ``keras.utils``' ``extract_archive``, but
    refusing unsafe archives as a whole (see the module docstring); each file of the
    archive lands in ``path`` in one rename, replacing a file of the same name.

    Args:
        file_path: the archive.
        path: the folder to extract into (made if missing; what else it holds is kept).
        archive_format: ``"auto"`` (tar, then zip), ``"tar"``, ``"zip"``, a list of them,
            or None (extract nothing).

    Returns:
        True when the archive matched one of the formats and was extracted, else False.
    """
    file_path, path = os.fspath(file_path), os.fspath(path)
    if os.path.lexists(path) and not os.path.isdir(path):
        raise ValueError(f"extract_archive: path must be a folder, got the file {path!r}")
    for archive_type in _formats(archive_format):
        matches = tarfile.is_tarfile if archive_type == "tar" else zipfile.is_zipfile
        if not matches(file_path):
            continue
        parent = os.path.dirname(os.path.abspath(path))
        os.makedirs(parent, exist_ok=True)
        staging = tempfile.mkdtemp(prefix=".extracting-", dir=parent)
        try:
            _extract_into(file_path, archive_type, staging)
            if not os.path.isdir(path):
                os.replace(staging, path)      # a new folder: one rename
            else:
                _move_entries(staging, path)
        finally:
            _remove(staging)
        return True
    return False

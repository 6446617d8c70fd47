"""get_file with file:// origins: caching, hashes, atomic downloads, Keras' naming of
downloaded archives and their extraction folders, and refusal of unsafe archives."""

import hashlib
import io
import os
import tarfile
import zipfile

import pytest

import lamina
from lamina.utils import get_file


@pytest.fixture
def source(tmp_path):
    path = tmp_path / "src" / "data.txt"
    path.parent.mkdir()
    path.write_bytes(b"hello lamina")
    return path


def url(path):
    return path.resolve().as_uri()


def cache(tmp_path):
    return str(tmp_path / "cache")


def test_downloads_once_into_the_cache(tmp_path, source, capsys):
    path = get_file(origin=url(source), cache_dir=cache(tmp_path))
    assert path == os.path.join(cache(tmp_path), "datasets", "data.txt")
    assert open(path, "rb").read() == b"hello lamina"
    assert "Downloading data from file://" in capsys.readouterr().out
    source.write_bytes(b"changed")
    assert open(get_file("data.txt", url(source), cache_dir=cache(tmp_path)),
                "rb").read() == b"hello lamina"                      # cached
    assert "Downloading" not in capsys.readouterr().out
    forced = get_file("data.txt", url(source), cache_dir=cache(tmp_path), force_download=True)
    assert open(forced, "rb").read() == b"changed"
    other = get_file("copy.bin", url(source), cache_dir=cache(tmp_path), cache_subdir="sub")
    assert other == os.path.join(cache(tmp_path), "sub", "copy.bin")
    assert os.listdir(os.path.dirname(path)) == ["data.txt"]        # no temporary file left


def test_messages_are_logged_without_interactive_logging(tmp_path, source, capsys, caplog):
    # Keras prints them with io_utils.print_msg: to the logs once interactive logging is off
    lamina.config.disable_interactive_logging()
    try:
        with caplog.at_level("INFO", logger="lamina"):
            get_file(origin=url(source), cache_dir=cache(tmp_path))
    finally:
        lamina.config.enable_interactive_logging()
    assert "Downloading data from file://" not in capsys.readouterr().out
    assert any("Downloading data from file://" in record.getMessage()
               for record in caplog.records)


def test_default_cache_is_keras_home(tmp_path, source, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path / "khome"))
    assert get_file(origin=url(source)) == str(tmp_path / "khome" / "datasets" / "data.txt")


def test_hashes(tmp_path, source):
    sha256 = hashlib.sha256(b"hello lamina").hexdigest()
    md5 = hashlib.md5(b"hello lamina").hexdigest()
    path = get_file(origin=url(source), cache_dir=cache(tmp_path), file_hash=sha256)
    assert get_file(origin=url(source), cache_dir=cache(tmp_path), file_hash=md5) == path
    assert get_file(origin=url(source), cache_dir=cache(tmp_path), md5_hash=md5) == path
    with pytest.raises(ValueError, match="md5 file hash"):
        get_file(origin=url(source), cache_dir=cache(tmp_path), md5_hash="0" * 32,
                 force_download=True)
    # a cached file whose hash no longer matches is downloaded again
    source.write_bytes(b"version 2")
    new_hash = hashlib.sha256(b"version 2").hexdigest()
    assert open(get_file(origin=url(source), cache_dir=cache(tmp_path), file_hash=new_hash),
                "rb").read() == b"version 2"


def test_a_corrupted_download_never_replaces_the_cached_file(tmp_path, source):
    path = get_file(origin=url(source), cache_dir=cache(tmp_path))
    with pytest.raises(ValueError, match="Incomplete or corrupted file detected"):
        get_file(origin=url(source), cache_dir=cache(tmp_path), file_hash="0" * 64,
                 force_download=True)
    assert open(path, "rb").read() == b"hello lamina"
    assert os.listdir(os.path.dirname(path)) == ["data.txt"]


def test_a_failed_download_leaves_nothing(tmp_path, source):
    with pytest.raises(Exception, match="URL fetch failure"):
        get_file(origin=url(source.parent / "missing.txt"), cache_dir=cache(tmp_path))
    assert os.listdir(os.path.join(cache(tmp_path), "datasets")) == []


@pytest.mark.parametrize("kwargs, match", [
    ({}, "origin"),
    ({"origin": "file:///x/", "fname": None}, "Can't parse the file name"),
    ({"origin": "file:///x/a.txt", "fname": "dir/a.txt"}, "Paths are no longer accepted"),
    ({"origin": "file:///x/a.txt", "hash_algorithm": "sha1"}, "hash_algorithm"),
    ({"origin": "file:///x/.."}, "Can't parse the file name"),
])
def test_bad_arguments(tmp_path, kwargs, match):
    with pytest.raises(ValueError, match=match):
        get_file(cache_dir=cache(tmp_path), **kwargs)
    assert not os.path.exists(cache(tmp_path))     # checked before any folder is made


def tar_of(path, members):
    with tarfile.open(path, "w:gz") as archive:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


def test_extracts_archives_with_keras_names(tmp_path):
    archive = tar_of(tmp_path / "flowers.tgz", [("flowers/a.txt", b"a")])
    datasets = os.path.join(cache(tmp_path), "datasets")
    # no fname: the archive is '<name>_archive', the folder '<name>'
    folder = get_file(origin=url(archive), extract=True, cache_dir=cache(tmp_path))
    assert folder == os.path.join(datasets, "flowers.tgz")
    assert open(os.path.join(folder, "flowers", "a.txt")).read() == "a"
    assert os.path.isfile(os.path.join(datasets, "flowers.tgz_archive"))
    # fname with an extension: the archive keeps it, the folder is '<stem>_extracted'
    folder = get_file("fl.tar.gz", url(archive), extract=True, cache_dir=cache(tmp_path))
    assert folder == os.path.join(datasets, "fl_extracted")
    # fname without one: the folder is fname
    folder = get_file("fl2", url(archive), untar=True, cache_dir=cache(tmp_path))
    assert folder == os.path.join(datasets, "fl2") and os.path.isdir(folder)
    zipped = tmp_path / "z.zip"
    with zipfile.ZipFile(zipped, "w") as out:
        out.writestr("inner/b.txt", "b")
    folder = get_file(origin=url(zipped), extract=True, cache_dir=cache(tmp_path))
    assert open(os.path.join(folder, "inner", "b.txt")).read() == "b"


def test_a_malicious_archive_is_refused(tmp_path):
    archive = tar_of(tmp_path / "evil.tar.gz", [("ok.txt", b"1"), ("../../evil.txt", b"2")])
    with pytest.raises(ValueError, match="Refusing to extract"):
        get_file(origin=url(archive), extract=True, cache_dir=cache(tmp_path))
    datasets = os.path.join(cache(tmp_path), "datasets")
    assert os.listdir(datasets) == ["evil.tar.gz_archive"]          # no extraction folder
    assert not (tmp_path / "evil.txt").exists() and not (tmp_path / "cache" / "evil.txt").exists()


def test_a_file_that_is_no_archive_warns(tmp_path, source):
    with pytest.warns(UserWarning, match="Could not extract archive"):
        get_file(origin=url(source), extract=True, cache_dir=cache(tmp_path))

"""Safe archive extraction: good tar/zip archives unpack; an archive with any member that
could write outside the folder is refused whole, leaving nothing behind."""

import io
import os
import tarfile
import zipfile

import pytest

from lamina.highlevel.utils.archives import extract_archive


def make_tar(path, members, mode="w:gz"):
    """``members``: (name, bytes) files, or (name, "->", target) symlinks, or
    (name, "=>", target) hard links."""
    with tarfile.open(path, mode) as archive:
        for name, *rest in members:
            info = tarfile.TarInfo(name)
            if rest[0] in ("->", "=>"):
                info.type = tarfile.SYMTYPE if rest[0] == "->" else tarfile.LNKTYPE
                info.linkname = rest[1]
                archive.addfile(info)
            else:
                info.size = len(rest[0])
                archive.addfile(info, io.BytesIO(rest[0]))
    return path


def make_zip(path, members):
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members:
            archive.writestr(name, data)
    return path


def leftovers(folder):
    return sorted(name for name in os.listdir(folder) if name.startswith(".extracting"))


def test_tar_and_zip_extract_with_inner_links(tmp_path):
    tar = make_tar(tmp_path / "a.tar.gz", [("d/x.txt", b"x"), ("d/link", "->", "x.txt"),
                                           ("hard", "=>", "d/x.txt")])
    assert extract_archive(tar, tmp_path / "out")
    assert (tmp_path / "out/d/x.txt").read_bytes() == b"x"
    assert os.readlink(tmp_path / "out/d/link") == "x.txt"
    assert (tmp_path / "out/hard").read_bytes() == b"x"
    archive = make_zip(tmp_path / "a.zip", [("z/y.txt", b"y")])
    assert extract_archive(archive, tmp_path / "out", archive_format="zip")
    assert (tmp_path / "out/z/y.txt").read_bytes() == b"y"
    assert (tmp_path / "out/d/x.txt").read_bytes() == b"x"   # kept, as Keras' extractall
    assert leftovers(tmp_path) == []


def test_extraction_replaces_only_the_archives_entries_and_keeps_other_files(tmp_path):
    out = tmp_path / "out"
    (out / "d").mkdir(parents=True)
    (out / "d/old.txt").write_bytes(b"old")
    (out / "mine.txt").write_bytes(b"user data")
    tar = make_tar(tmp_path / "a.tar", [("d/x.txt", b"new")], mode="w")
    assert extract_archive(tar, out)
    (out / "d/x.txt").write_bytes(b"stale")
    assert extract_archive(tar, out)
    assert (out / "mine.txt").read_bytes() == b"user data"
    assert (out / "d/x.txt").read_bytes() == b"new"
    assert (out / "d/old.txt").read_bytes() == b"old"      # folders merge, as extractall
    assert sorted(os.listdir(out)) == ["d", "mine.txt"] and leftovers(tmp_path) == []
    (tmp_path / "file").write_bytes(b"f")
    with pytest.raises(ValueError, match="must be a folder"):
        extract_archive(tar, tmp_path / "file")
    assert (tmp_path / "file").read_bytes() == b"f"


def test_formats_that_do_not_match_extract_nothing(tmp_path):
    tar = make_tar(tmp_path / "a.tar", [("x", b"1")], mode="w")
    plain = tmp_path / "plain.txt"
    plain.write_text("not an archive")
    assert not extract_archive(tar, tmp_path / "o1", archive_format="zip")
    assert not extract_archive(tar, tmp_path / "o2", archive_format=None)
    assert not extract_archive(plain, tmp_path / "o3")
    assert not any((tmp_path / f"o{i}").exists() for i in (1, 2, 3))
    with pytest.raises(ValueError, match="archive_format"):
        extract_archive(tar, tmp_path / "o4", archive_format="rar")


@pytest.mark.parametrize("members, named", [
    ([("ok.txt", b"1"), ("../evil.txt", b"2")], "../evil.txt"),
    ([("/tmp/evil_abs.txt", b"2")], "/tmp/evil_abs.txt"),
    ([("a/../../evil.txt", b"2")], "a/../../evil.txt"),
    ([("link", "->", "/etc/passwd")], "link"),
    ([("link", "->", "../outside")], "link"),
    ([("d/link", "->", "sub/../../x")], "d/link"),
    ([("hard", "=>", "../outside")], "hard"),
])
def test_a_malicious_tar_is_refused_whole(tmp_path, members, named):
    tar = make_tar(tmp_path / "evil.tar.gz", [("first.txt", b"0")] + members)
    target = tmp_path / "box" / "out"
    with pytest.raises(ValueError, match=f"Refusing to extract the archive: member "
                                         f"'{named}'"):
        extract_archive(tar, target)
    assert not target.exists() and leftovers(tmp_path / "box") == []
    assert not (tmp_path / "box" / "evil.txt").exists() and not (tmp_path / "evil.txt").exists()


def test_a_tar_with_a_device_file_is_refused(tmp_path):
    with tarfile.open(tmp_path / "dev.tar", "w") as archive:
        info = tarfile.TarInfo("fifo")
        info.type = tarfile.FIFOTYPE
        archive.addfile(info)
    with pytest.raises(ValueError, match="device file or FIFO"):
        extract_archive(tmp_path / "dev.tar", tmp_path / "out")


def test_a_malicious_zip_is_refused_and_the_old_folder_kept(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("old")
    archive = make_zip(tmp_path / "evil.zip", [("fine.txt", b"1"), ("../../evil.txt", b"2")])
    with pytest.raises(ValueError, match="'../../evil.txt' has a '..' component"):
        extract_archive(archive, tmp_path / "out")
    assert (tmp_path / "out" / "keep.txt").read_text() == "old"
    assert sorted(os.listdir(tmp_path / "out")) == ["keep.txt"] and leftovers(tmp_path) == []

"""Atomic file writes under failure and concurrency: a failed or killed save leaves the
previous file intact, a full disk raises ``OSError`` every time (never a crash inside
libhdf5) and leaves no temporary file, temporary files of killed saves do not accumulate,
``overwrite=False`` never replaces a file another writer created, and re-saving keeps
permission bits and writes through symbolic links."""

import errno
import json
import os
import signal
import stat
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import lamina
from lamina import layers
from lamina.highlevel.saving import atomic_write, h5io as file_integrity


def make_model(seed=0):
    lamina.utils.set_random_seed(seed)
    model = lamina.Sequential([layers.Input((4,)), layers.Dense(6, activation="relu"),
                               layers.Dense(2)], name="atomic")
    model.compile(optimizer="adam", loss="mse")
    return model


X = np.linspace(-1, 1, 12, dtype="float32").reshape(3, 4)


def predictions(model):
    return model.predict(X, verbose=0)


SAVES = [("save", ".h5"), ("save_weights", ".h5"), ("save_weights", ".weights.h5")]


# ----------------------------------------------------------------------------- full disks
@pytest.mark.parametrize("method, suffix", SAVES)
def test_a_full_disk_raises_oserror_every_time_and_leaves_no_temporary(tmp_path, monkeypatch,
                                                                        method, suffix):
    path = tmp_path / f"m{suffix}"
    getattr(make_model(seed=1), method)(path)
    before = path.read_bytes()

    def no_space(descriptor, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", no_space)
    for _ in range(3):
        with pytest.raises(OSError) as error:
            getattr(make_model(seed=2), method)(path)
        assert error.value.errno == errno.ENOSPC and path.name in str(error.value)
        assert os.listdir(tmp_path) == [path.name]
    monkeypatch.undo()
    assert path.read_bytes() == before


_FILL_DISK = textwrap.dedent("""
    import json, os, sys
    import lamina
    folder = sys.argv[1]
    outcomes = []
    for units in (450, 480, 1000):      # 450 and 480 crashed libhdf5 in its second save
        model = lamina.Sequential([lamina.layers.Input((100,)), lamina.layers.Dense(units),
                                   lamina.layers.Dense(10)])
        for _ in range(2):
            try:
                model.save(os.path.join(folder, "m.h5"))
                outcomes.append("saved")
            except OSError as error:
                outcomes.append(f"OSError {error.errno}")
    print(json.dumps({"outcomes": outcomes, "left": os.listdir(folder)}))
""")


def test_a_real_full_disk_twice_in_one_process_raises_oserror(tmp_path):
    folder = tmp_path / "small"
    folder.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=200k", "tmpfs", str(folder)],
                             capture_output=True)
    if mounted.returncode != 0:
        pytest.skip("mounting a 200 KB tmpfs needs root (the monkeypatched test above runs)")
    try:
        result = subprocess.run([sys.executable, "-c", _FILL_DISK, str(folder)],
                                capture_output=True, text=True, timeout=600)
    finally:
        subprocess.run(["umount", str(folder)], capture_output=True)
    assert result.returncode == 0, f"rc {result.returncode}: {result.stderr[-2000:]}"
    record = json.loads(result.stdout.splitlines()[-1])
    full = f"OSError {errno.ENOSPC}"
    assert set(record["outcomes"]) <= {"saved", full}
    assert record["outcomes"][-4:] == [full] * 4 and record["left"] in ([], ["m.h5"])


# ----------------------------------------------------------------------------- killed saves
_KILLED_WRITER = textwrap.dedent("""
    import os, sys, time
    import lamina
    real = os.write
    def stalled(descriptor, data):
        written = real(descriptor, bytes(memoryview(data)[:64]))
        print("writing", flush=True)
        time.sleep(60)
        return written
    os.write = stalled
    model = lamina.Sequential([lamina.layers.Input((4,)), lamina.layers.Dense(6)])
    model.save(sys.argv[1])
""")


def test_temporary_files_of_killed_saves_do_not_accumulate(tmp_path):
    path = tmp_path / "m.h5"
    make_model(seed=1).save(path)
    for _ in range(2):
        child = subprocess.Popen([sys.executable, "-c", _KILLED_WRITER, str(path)],
                                 stdout=subprocess.PIPE, text=True)
        try:
            assert child.stdout.readline().strip() == "writing"
        finally:
            child.kill()
            child.wait(timeout=30)
    killed = [name for name in os.listdir(tmp_path) if name != "m.h5"]
    assert len(killed) == 1 and killed[0].startswith(".m.h5.")   # the 2nd removed the 1st's
    running = tmp_path / atomic_write.temporary_name("m.h5")        # this process: alive
    running.write_bytes(b"in progress")
    hour_ago = time.time() - atomic_write.STALE_AFTER_S - 60
    older_lamina = tmp_path / ".m.h5.0123456789ab.tmp"              # no pid in its name
    other_target = tmp_path / ".other.h5.0123456789ab.tmp"
    for old in (older_lamina, other_target):
        old.write_bytes(b"stale")
        os.utime(old, (hour_ago, hour_ago))
    make_model(seed=2).save(path)
    assert sorted(os.listdir(tmp_path)) == sorted(["m.h5", running.name, other_target.name])
    np.testing.assert_array_equal(predictions(lamina.load_model(path)),
                                  predictions(make_model(seed=2)))


# ----------------------------------------------------------------------------- overwrite=False
_RACER = textwrap.dedent("""
    import os, sys, time
    import lamina
    path, go, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
    lamina.utils.set_random_seed(seed)
    model = lamina.Sequential([lamina.layers.Input((4,)), lamina.layers.Dense(6)])
    model.to_bytes()                                      # warm up before the start signal
    print("ready", flush=True)
    while not os.path.exists(go):
        time.sleep(0.001)
    try:
        model.save(path, overwrite=False)
        print("won", flush=True)
    except FileExistsError:
        print("FileExistsError", flush=True)
""")


def test_processes_saving_with_overwrite_false_at_once_exactly_one_wins(tmp_path):
    path, go = tmp_path / "m.h5", tmp_path / "go"
    children = [subprocess.Popen([sys.executable, "-c", _RACER, str(path), str(go), str(i)],
                                 stdout=subprocess.PIPE, text=True) for i in range(4)]
    try:
        for child in children:
            assert child.stdout.readline().strip() == "ready"
        go.write_text("")
        outcomes = [child.communicate(timeout=120)[0].strip() for child in children]
    finally:
        for child in children:
            child.kill()
            child.wait(timeout=30)
    assert sorted(outcomes) == ["FileExistsError"] * 3 + ["won"]
    assert sorted(os.listdir(tmp_path)) == ["go", "m.h5"]
    assert lamina.load_model(path).predict(X, verbose=0).shape == (3, 6)


@pytest.mark.parametrize("hard_links", [True, False])
def test_overwrite_false_never_replaces_a_file_created_during_the_save(tmp_path, monkeypatch,
                                                                       hard_links):
    path = tmp_path / "m.h5"
    winner = make_model(seed=1).to_bytes()
    real_write_file = atomic_write._write_file

    def racing(temporary, data, target):
        real_write_file(temporary, data, target)
        path.write_bytes(winner)                    # another process finished first

    def no_links(source, destination):
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(atomic_write, "_write_file", racing)
    if not hard_links:
        monkeypatch.setattr(os, "link", no_links)
    with pytest.raises(FileExistsError, match="overwrite=False"):
        make_model(seed=2).save(path, overwrite=False)
    assert path.read_bytes() == winner and os.listdir(tmp_path) == ["m.h5"]
    monkeypatch.setattr(atomic_write, "_write_file", real_write_file)
    make_model(seed=3).save(tmp_path / "new.h5", overwrite=False)
    np.testing.assert_array_equal(predictions(lamina.load_model(tmp_path / "new.h5")),
                                  predictions(make_model(seed=3)))
    assert sorted(os.listdir(tmp_path)) == ["m.h5", "new.h5"]


# ----------------------------------------------------------------------------- re-saving
@pytest.mark.parametrize("method, suffix", SAVES)
def test_resaving_keeps_permission_bits_and_writes_through_symlinks(tmp_path, method, suffix):
    real = tmp_path / f"real{suffix}"
    getattr(make_model(seed=1), method)(real)
    os.chmod(real, 0o640)
    link = tmp_path / f"link{suffix}"
    link.symlink_to(real)
    getattr(make_model(seed=2), method)(link)
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert stat.S_IMODE(os.stat(real).st_mode) == 0o640
    assert sorted(os.listdir(tmp_path)) == sorted([real.name, link.name])
    if method == "save":
        loaded = lamina.load_model(real)
    else:
        loaded = make_model(seed=5)
        loaded.load_weights(real)
    np.testing.assert_array_equal(predictions(loaded), predictions(make_model(seed=2)))
    with pytest.raises(FileExistsError):
        getattr(make_model(seed=3), method)(link, overwrite=False)


# ----------------------------------------------------------------------------- interrupted saves
@pytest.mark.parametrize("method, suffix", [("save", ".h5"), ("save_weights", ".h5"),
                                            ("save_weights", ".weights.h5")])
@pytest.mark.parametrize("failure", [OSError("disk full"), KeyboardInterrupt()])
def test_a_failed_write_leaves_the_previous_file_intact(tmp_path, monkeypatch, method, suffix,
                                                        failure):
    path = tmp_path / f"model{suffix}"
    old = make_model(seed=1)
    getattr(old, method)(path)
    before = path.read_bytes()
    calls = []
    real_write = file_integrity.write_array

    def failing_write(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:                 # in the middle of the weights
            raise failure
        return real_write(*args, **kwargs)

    monkeypatch.setattr(file_integrity, "write_array", failing_write)
    with pytest.raises(type(failure)):
        getattr(make_model(seed=2), method)(path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == [path.name]          # no temporary file left behind
    if method == "save":
        np.testing.assert_array_equal(predictions(lamina.load_model(path)), predictions(old))
    else:
        twin = make_model(seed=3)
        twin.load_weights(path)
        np.testing.assert_array_equal(predictions(twin), predictions(old))


def test_killing_the_process_mid_save_keeps_the_previous_checkpoint(tmp_path):
    path = tmp_path / "m.h5"
    old = make_model(seed=1)
    old.save(path)
    script = textwrap.dedent(f"""
        import sys, time
        import numpy as np
        import lamina
        from lamina.highlevel.saving import h5io as file_integrity
        real = file_integrity.write_array
        count = [0]
        def slow(*args, **kwargs):
            count[0] += 1
            if count[0] == 2:
                print("writing", flush=True)
                time.sleep(60)
            return real(*args, **kwargs)
        file_integrity.write_array = slow
        model = lamina.Sequential([lamina.layers.Input((4,)), lamina.layers.Dense(6),
                                   lamina.layers.Dense(2)])
        model.save({str(path)!r})
    """)
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                             text=True)
    try:
        assert child.stdout.readline().strip() == "writing"
        child.send_signal(signal.SIGKILL)
    finally:
        child.wait(timeout=30)
    np.testing.assert_array_equal(predictions(lamina.load_model(path)), predictions(old))
    leftovers = [name for name in os.listdir(tmp_path) if name != "m.h5"]
    assert all(name.startswith(".m.h5.") and name.endswith(".tmp") for name in leftovers)


def test_overwrite_false_refuses_to_replace(tmp_path):
    make_model().save(tmp_path / "m.h5")
    with pytest.raises(FileExistsError):
        make_model().save(tmp_path / "m.h5", overwrite=False)

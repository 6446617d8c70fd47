"""The progress bar of ``fit`` as a user sees it: redrawn in place under a terminal (a
pseudo-terminal here), one line per epoch and no carriage returns when stdout is a pipe."""

import os
import subprocess
import sys

import pytest

SCRIPT = """
import numpy as np, lamina
from lamina import layers as L
from lamina.highlevel.callbacks import progbar
progbar.Progbar.__init__.__defaults__ = (1, 0.0, "step")     # redraw at every step
model = lamina.Sequential([lamina.Input((3,)), L.Dense(1)])
model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
x = np.zeros((40, 3), "float32")
model.fit(x, x[:, :1], batch_size=4, epochs=2, verbose=1)
"""


def _environment():
    env = dict(os.environ, COLUMNS="120", LINES="40")
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    return env


def test_pipe_gets_one_line_per_epoch():
    result = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True,
                            env=_environment(), timeout=300, check=True)
    out = result.stdout.decode()
    assert "\r" not in out
    lines = out.splitlines()
    assert lines[0] == "Epoch 1/2" and lines[2] == "Epoch 2/2" and len(lines) == 4
    for line in (lines[1], lines[3]):
        assert line.startswith("10/10 - ") and "/step - loss: " in line and "mae: " in line


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_terminal_redraws_in_place():
    import pty
    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-c", SCRIPT], stdout=follower,
                               stderr=subprocess.DEVNULL, env=_environment())
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:                      # the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert process.wait(timeout=300) == 0
    out = b"".join(chunks).decode(errors="replace")
    assert out.count("\r") >= 10                          # redrawn within each epoch
    final = [line.split("\r")[-1] for line in out.replace("\r\n", "\n").split("\n")]
    done = [line for line in final if line.startswith("10/10")]
    assert len(done) == 2 and all("loss: " in line and "/step" in line for line in done)
    assert any("<" in part for part in out.split("\r"))    # an ETA while running

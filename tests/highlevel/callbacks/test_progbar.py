"""The progress display of fit / evaluate / predict (Progbar, ProgbarLogger): one line per
epoch off a terminal, a throttled live bar on one, and the number and time formats; and the
bar as a user sees it: redrawn in place under a pseudo-terminal, one line per epoch and no
carriage returns when stdout is a pipe."""

import io
import logging
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from harness.callbacks import FakeModel, fit
from lamina import config as lamina_config
from lamina.highlevel import callbacks as cb
from lamina.highlevel.callbacks import progbar as progress

LINE = re.compile(r"^(\d+)/(\d+) - \d+s - \d+(us|ms|s)/step((?: - \w+: [-\d.e+]+)*)$")


def epoch_logs(n):
    return [{"loss": 0.5 / (e + 1), "accuracy": 0.9, "val_loss": 0.6, "val_accuracy": 0.8}
            for e in range(n)]


def progress_lines(out):
    return [line for line in out.splitlines() if line.strip()]


@pytest.mark.parametrize("verbose", [2, 1, "auto"])
def test_one_line_per_epoch_when_verbose_2_or_not_a_tty(verbose, capsys):
    fit([], epoch_logs(3), steps=4, verbose=verbose)
    lines = progress_lines(capsys.readouterr().out)
    assert lines[0::2] == ["Epoch 1/3", "Epoch 2/3", "Epoch 3/3"]
    for line, epoch in zip(lines[1::2], range(3)):
        match = LINE.match(line)
        assert match, line
        assert match.group(1) == match.group(2) == "4"
        assert match.group(4) == (f" - loss: {0.5 / (epoch + 1):.4f} - accuracy: 0.9000"
                                  " - val_loss: 0.6000 - val_accuracy: 0.8000")
    assert len(lines) == 6


def test_single_epoch_has_no_header_and_verbose_0_prints_nothing(capsys):
    fit([], epoch_logs(1), steps=4, verbose=2)
    lines = progress_lines(capsys.readouterr().out)
    assert len(lines) == 1 and LINE.match(lines[0])
    fit([], epoch_logs(2), steps=4, verbose=0)
    assert capsys.readouterr().out == ""


def test_unknown_steps_use_the_count_seen(capsys):
    fit([], epoch_logs(1), steps=5, verbose=2)
    callbacks = cb.CallbackList([], add_progbar=True, model=FakeModel(), verbose=2,
                                epochs=1, steps=None)
    callbacks.on_train_begin()
    callbacks.on_epoch_begin(0)
    for batch in range(7):
        callbacks.on_train_batch_end(batch, {"loss": 0.1})
    callbacks.on_epoch_end(0, {"loss": 0.1})
    line = progress_lines(capsys.readouterr().out)[-1]
    assert line.startswith("7/7 - ")


def test_evaluate_and_predict_progress_outside_fit(capsys):
    callbacks = cb.CallbackList([], add_progbar=True, model=FakeModel(), verbose=2,
                                epochs=1, steps=3)
    callbacks.on_test_begin()
    for batch in range(3):
        callbacks.on_test_batch_end(batch, {"loss": 0.25})
    callbacks.on_test_end({"loss": 0.25})
    callbacks.on_predict_begin()
    for batch in range(3):
        callbacks.on_predict_batch_end(batch, {"outputs": None})
    callbacks.on_predict_end()
    lines = progress_lines(capsys.readouterr().out)
    assert len(lines) == 2
    assert LINE.match(lines[0]).group(4) == " - loss: 0.2500"
    assert LINE.match(lines[1]).group(4) == ""


def test_validation_inside_fit_is_not_shown_separately(capsys):
    callbacks = cb.CallbackList([], add_progbar=True, model=FakeModel(), verbose=2,
                                epochs=1, steps=2)
    callbacks.on_train_begin()
    callbacks.on_epoch_begin(0)
    for batch in range(2):
        callbacks.on_train_batch_end(batch, {"loss": 0.5})
    callbacks.on_test_begin()
    callbacks.on_test_batch_end(0, {"loss": 0.7})
    callbacks.on_test_end({"loss": 0.7})
    callbacks.on_epoch_end(0, {"loss": 0.5, "val_loss": 0.7})
    callbacks.on_train_end()
    lines = progress_lines(capsys.readouterr().out)
    assert len(lines) == 1 and lines[0].endswith(" - loss: 0.5000 - val_loss: 0.7000")


class FakeTTY(io.StringIO):
    def isatty(self):
        return True


def test_live_bar_on_a_terminal(monkeypatch):
    stream = FakeTTY()
    monkeypatch.setattr(sys, "stdout", stream)
    steps = 2000
    fit([], epoch_logs(2), steps=steps, verbose=1,
        batch_logs=lambda e, b: {"loss": 0.25, "accuracy": 0.5})
    out = stream.getvalue()
    assert "Epoch 1/2\n" in out and "Epoch 2/2\n" in out
    final = [seg for seg in re.split(r"[\r\n]", out) if seg.startswith(f"{steps}/{steps}")]
    assert len(final) >= 2
    for line in final[-2:]:
        assert re.search(r"\d+(us|ms|s)/step - loss: 0\.\d{4} - accuracy: 0\.9000"
                         r" - val_loss: 0\.6000 - val_accuracy: 0\.8000$", line.rstrip()), line
    # redraws are throttled: far fewer than one per batch
    assert out.count("\r") < steps / 10


def test_live_progbar_redraws_at_most_every_interval(monkeypatch):
    stream = FakeTTY()
    monkeypatch.setattr(sys, "stdout", stream)
    clock = [0.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: clock[0])
    bar = progress.Progbar(target=100, verbose=1, interval=0.1)
    assert bar.live
    draws = stream.getvalue().count("\r")
    for step in range(1, 100):
        clock[0] += 0.01  # 10 ms per step: a redraw every 10 steps
        bar.update(step, {"loss": 1.0 / step})
    redraws = stream.getvalue().count("\r") - draws
    assert 8 <= redraws <= 11
    assert "10ms/step - loss:" in stream.getvalue()
    clock[0] += 0.01
    bar.update(100, {"loss": 0.01})
    last = stream.getvalue().rstrip("\n").split("\r")[-1].rstrip()
    assert last.startswith("100/100") and last.endswith("10ms/step - loss: 0.0100")


def test_number_and_time_formats():
    assert progress.format_time_per_step(0.012) == "12ms/step"
    assert progress.format_time_per_step(0.0004) == "400us/step"
    assert progress.format_time_per_step(2.4) == "2s/step"
    assert progress.format_value(0.123456) == "0.1235"
    assert progress.format_value(0.0001) == "1.0000e-04"
    assert progress.format_value(np.float32(2.0)) == "2.0000"
    assert progress.format_logs({"loss": 0.5, "acc": 1}) == " - loss: 0.5000 - acc: 1.0000"


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


@pytest.fixture
def logging_disabled():
    """Interactive logging off for the test, back on afterwards."""
    lamina_config.disable_interactive_logging()
    yield
    lamina_config.enable_interactive_logging()


def test_without_interactive_logging_progress_goes_to_logging(monkeypatch, capsys, caplog,
                                                              logging_disabled):
    monkeypatch.setattr(sys, "stdout", FakeTTY())   # a terminal: no live bar all the same
    with caplog.at_level(logging.INFO, logger="lamina"):
        fit([], epoch_logs(2), steps=4, verbose=1)
    assert sys.stdout.getvalue() == ""
    messages = [record.getMessage() for record in caplog.records if record.name == "lamina"]
    assert messages[0::2] == ["Epoch 1/2", "Epoch 2/2"]
    assert len(messages) == 4 and all(LINE.match(line) for line in messages[1::2])

"""The progress bar in Jupyter: under an IPython kernel (faked here as tqdm detects it:
``IPKernelApp`` in the running shell's config) the live bar is ``tqdm.auto``'s, even
though the kernel's stdout is not a terminal; elsewhere it is the terminal bar."""

import io
import sys
import types

import pytest
import tqdm.auto

from lamina.highlevel.callbacks import progbar


class _Shell:
    def __init__(self, config):
        self.config = config


@pytest.fixture
def fake_ipython(monkeypatch):
    def install(config):
        module = types.ModuleType("IPython")
        module.get_ipython = lambda: _Shell(config)
        monkeypatch.setitem(sys.modules, "IPython", module)
    return install


def test_kernel_is_detected_as_tqdm_does(fake_ipython, monkeypatch):
    monkeypatch.delitem(sys.modules, "IPython", raising=False)
    assert not progbar.in_notebook()
    fake_ipython({"IPKernelApp": {}})
    assert progbar.in_notebook()
    fake_ipython({"TerminalIPythonApp": {}})           # IPython in a terminal: not Jupyter
    assert not progbar.in_notebook()


def test_notebook_bar_goes_through_tqdm_auto(fake_ipython, monkeypatch):
    fake_ipython({"IPKernelApp": {}})
    monkeypatch.setattr(sys, "stdout", io.StringIO())  # a kernel's stdout is no terminal
    bar = progbar.Progbar(target=3, verbose=1)
    assert bar.live
    assert isinstance(bar._bar, tqdm.auto.tqdm) and not isinstance(bar._bar, progbar._Bar)
    for step in range(3):
        bar.update(step + 1, {"loss": 0.5})
    assert bar.finalized


def test_terminal_bar_outside_jupyter(fake_ipython, monkeypatch):
    fake_ipython({"TerminalIPythonApp": {}})
    stream = io.StringIO()
    stream.isatty = lambda: True
    monkeypatch.setattr(sys, "stdout", stream)
    bar = progbar.Progbar(target=2, verbose=1)
    assert isinstance(bar._bar, progbar._Bar)
    bar.update(2, {"loss": 0.25})
    assert "loss: 0.2500" in stream.getvalue()

"""The runnable examples (issues #3 and #4): each runs as a user would run it and exits 0.

``examples/digits_mlp.py`` exits 1 below 97% test accuracy, ``digits_cnn.py`` below 98%,
``sequence_classification.py`` below 95%; ``examples/
functional_multi_io.py`` exits 1 unless both of its losses fall.
"""

import pathlib
import re
import shutil
import subprocess
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def run_example(name, timeout=240):
    result = subprocess.run([sys.executable, str(EXAMPLES / name)], capture_output=True,
                            text=True, timeout=timeout, cwd=EXAMPLES.parent)
    assert result.returncode == 0, (
        f"{name} exited {result.returncode}\nstdout:\n{result.stdout[-3000:]}\n"
        f"stderr:\n{result.stderr[-3000:]}")
    return result.stdout


def test_digits_mlp_reaches_97_percent():
    out = run_example("digits_mlp.py")
    match = re.search(r"test accuracy (\d\.\d+)", out)
    assert match, out[-2000:]
    assert float(match.group(1)) >= 0.97
    assert 'Model: "sequential"' in out and "Total params: 33,738" in out


def test_functional_multi_io_losses_fall():
    out = run_example("functional_multi_io.py")
    assert "first epoch:" in out and "last epoch:" in out
    assert "value_loss" in out and "label_loss" in out and "label_accuracy" in out



def test_digits_cnn_reaches_98_percent():
    out = run_example("digits_cnn.py")
    match = re.search(r"test accuracy (\d\.\d+)", out)
    assert match, out[-2000:]
    assert float(match.group(1)) >= 0.98


def test_sequence_classification_reaches_95_percent():
    out = run_example("sequence_classification.py")
    match = re.search(r"held-out accuracy (\d\.\d+)", out)
    assert match, out[-2000:]
    assert float(match.group(1)) >= 0.95


def test_visualize_training_writes_the_pictures(tmp_path):
    for module in ("pydot", "matplotlib", "tensorboardX", "onnx"):
        pytest.importorskip(module, reason="the example needs the plot/tensorboard/onnx extras")
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's `dot` is not installed (apt-get install graphviz)")
    result = subprocess.run([sys.executable, str(EXAMPLES / "visualize_training.py"),
                             str(tmp_path)], capture_output=True, text=True, timeout=300,
                            cwd=EXAMPLES.parent)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    for name in ("model.png", "history.png"):
        assert (tmp_path / name).read_bytes().startswith(b"\x89PNG")
    assert (tmp_path / "model.onnx").exists() and (tmp_path / "logs" / "train").is_dir()

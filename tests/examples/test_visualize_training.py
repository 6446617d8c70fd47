"""``examples/visualize_training.py`` writes its pictures (``plot_model``, ``plot_history``),
its TensorBoard logs and its ONNX file into the folder it is given."""

import shutil
import subprocess
import sys

import pytest

from harness.examples import EXAMPLES


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

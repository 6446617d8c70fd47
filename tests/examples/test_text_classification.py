"""The text classification example trains on raw sentences, reaches its stated held-out
accuracy, and its reloaded ``.h5`` model (vocabulary inside) predicts the same."""

import pathlib
import subprocess
import sys

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "text_classification.py"


def test_text_classification_example():
    result = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    accuracy = float(next(line for line in result.stdout.splitlines()
                          if line.startswith("held-out accuracy")).split()[-1])
    assert accuracy >= 0.95
    assert "reloaded model predicts the same: True" in result.stdout
    assert "text classification OK" in result.stdout

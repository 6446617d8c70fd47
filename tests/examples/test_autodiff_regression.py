"""The autodiff regression example runs, its loss falls, and it reports a good fit."""

import pathlib
import subprocess
import sys

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "autodiff_regression.py"


def test_autodiff_regression_example_fits():
    result = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    losses = [float(line.split()[-1]) for line in result.stdout.splitlines()
              if line.startswith("step")]
    assert len(losses) >= 3
    assert losses[-1] < losses[0] / 100
    assert "fit OK" in result.stdout

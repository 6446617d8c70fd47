"""The image augmentation example writes digit PNGs in class folders, reads them with
``image_dataset_from_directory``, trains a CNN behind augmentation layers and reaches its
stated validation accuracy, with inference unaffected by the augmentation."""

import pathlib
import subprocess
import sys

import pytest

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "image_augmentation.py"

pytest.importorskip("PIL")


def test_image_augmentation_example():
    result = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    accuracy = float(next(line for line in result.stdout.splitlines()
                          if line.startswith("validation accuracy")).split()[2])
    assert accuracy >= 0.90
    assert "Found 1797 files belonging to 10 classes." in result.stdout
    assert "inference is deterministic (augmentation off): True" in result.stdout
    assert "image augmentation OK" in result.stdout

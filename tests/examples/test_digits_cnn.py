"""``examples/digits_cnn.py`` runs and exits 0 (it exits 1 below 98% test accuracy)."""

import re

from harness.examples import run_example


def test_digits_cnn_reaches_98_percent():
    out = run_example("digits_cnn.py")
    match = re.search(r"test accuracy (\d\.\d+)", out)
    assert match, out[-2000:]
    assert float(match.group(1)) >= 0.98

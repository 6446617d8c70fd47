"""``examples/sequence_classification.py`` runs and exits 0 (it exits 1 below 95%
held-out accuracy)."""

import re

from harness.examples import run_example


def test_sequence_classification_reaches_95_percent():
    out = run_example("sequence_classification.py")
    match = re.search(r"held-out accuracy (\d\.\d+)", out)
    assert match, out[-2000:]
    assert float(match.group(1)) >= 0.95

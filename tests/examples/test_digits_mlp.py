"""``examples/digits_mlp.py`` runs as a user would run it, prints its summary and exits 0
(it exits 1 below 97% test accuracy)."""

import re

from harness.examples import run_example


def test_digits_mlp_reaches_97_percent():
    out = run_example("digits_mlp.py")
    match = re.search(r"test accuracy (\d\.\d+)", out)
    assert match, out[-2000:]
    assert float(match.group(1)) >= 0.97
    assert 'Model: "sequential"' in out and "Total params: 33,738" in out

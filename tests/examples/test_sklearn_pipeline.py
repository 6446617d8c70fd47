"""``examples/sklearn_pipeline.py``: a grid-searched scikit-learn pipeline around a lamina
classifier reaches 95% cross-validated accuracy."""

import re

from harness.examples import run_example


def test_pipeline_example_reaches_95_percent():
    out = run_example("sklearn_pipeline.py", timeout=600)
    assert "best parameters: {'net__fit_kwargs__epochs'" in out
    assert float(re.search(r"cross_val_score of the best pipeline: (\d\.\d+)",
                           out).group(1)) >= 0.95

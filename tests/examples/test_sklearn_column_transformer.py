"""``examples/sklearn_column_transformer.py``: a lamina regressor behind a
ColumnTransformer reaches a cross-validated R^2 of 0.4 and keeps the feature names."""

import re

from harness.examples import run_example


def test_column_transformer_example():
    out = run_example("sklearn_column_transformer.py", timeout=600)
    assert float(re.search(r"cross-validated R\^2: (-?\d\.\d+)", out).group(1)) >= 0.4
    assert "categorical__x1_1.0" in out

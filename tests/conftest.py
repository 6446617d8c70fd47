"""The suite's root: makes the shared harness importable and registers its fixtures.

``tests/`` goes on ``sys.path`` so that every test can import the helpers of
``tests/harness/`` (``from harness.ops import check_op, numerical_gradient``,
``from harness.layers import check_gradients``); with ``--import-mode=importlib`` conftest
modules are not importable by name, so the helpers live there and are re-exported here as
fixtures for every test folder: ``engine`` (one run per engine), ``check_op``, ``float64``,
``check_gradients``, ``check_config``, ``check_output_shape``, ``check_models`` and
``layer_case`` (with its ``pytest_generate_tests`` hook).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness.engines import engine  # noqa: E402,F401  (fixtures and hooks, found by name)
from harness.layers import (CHECK_FIXTURES, float64, layer_case,  # noqa: E402,F401
                            pytest_generate_tests)
from harness.ops import check_op_fixture  # noqa: E402,F401

check_gradients, check_config, check_output_shape, check_models = CHECK_FIXTURES

"""Puts ``tests/highlevel/support`` on ``sys.path``, so its modules (custom layers and
functions for the pickling tests) are importable by name here, in subprocesses given
``sys.path`` and in joblib's workers (which inherit the parent's ``sys.path``)."""

import pathlib
import sys

SUPPORT = str(pathlib.Path(__file__).resolve().parent / "support")
if SUPPORT not in sys.path:
    sys.path.insert(0, SUPPORT)

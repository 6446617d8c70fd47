"""Running an example script of ``examples/`` as a user would (a fresh interpreter, from
the repository root), for the tests of ``tests/examples/``."""

import pathlib
import subprocess
import sys

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def run_example(name, timeout=240):
    """Run ``examples/<name>``; assert it exits 0 and return its stdout."""
    result = subprocess.run([sys.executable, str(EXAMPLES / name)], capture_output=True,
                            text=True, timeout=timeout, cwd=EXAMPLES.parent)
    assert result.returncode == 0, (
        f"{name} exited {result.returncode}\nstdout:\n{result.stdout[-3000:]}\n"
        f"stderr:\n{result.stderr[-3000:]}")
    return result.stdout

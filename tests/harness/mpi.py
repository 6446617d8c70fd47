"""Running a script under ``mpirun -np N`` from a test: the launcher's environment (root
allowed, one BLAS thread per process, lamina importable), a timeout, the result."""

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WORKER = ROOT / "tests" / "highlevel" / "support" / "distributed_worker.py"

MPI_MISSING = None if shutil.which("mpirun") and importlib.util.find_spec("mpi4py") else (
    "mpirun or mpi4py is not installed (pip install lamina[mpi]): the multi-process "
    "tests need an MPI launcher")

needs_mpi = pytest.mark.skipif(MPI_MISSING is not None, reason=MPI_MISSING or "")


def environment():
    """The environment of a launched process: lamina importable from this checkout."""
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    import lamina

    parent = os.path.dirname(os.path.dirname(os.path.abspath(lamina.__file__)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (parent, env.get("PYTHONPATH")) if p)
    return env


def run(arguments, processes=2, timeout=240, script=WORKER):
    """``mpirun -np processes python script *arguments`` (``processes=None``: plain
    ``python``); returns the CompletedProcess, failing the test on a timeout."""
    command = [sys.executable, str(script), *map(str, arguments)]
    if processes is not None:
        # Open MPI: more processes than cores is allowed (a 1-core CI machine)
        command = ["mpirun", "--oversubscribe", "-np", str(processes), *command]
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                              env=environment())
    except subprocess.TimeoutExpired as error:
        pytest.fail(f"{' '.join(command)} did not finish in {timeout} s (a hang?): "
                    f"{error.stdout}\n{error.stderr}")


def check(result):
    """``result`` as a success, else fail with its output."""
    assert result.returncode == 0, f"exit {result.returncode}\n{result.stdout}\n{result.stderr}"
    return result


def import_error_message(blocked, statement):
    """The ImportError message of ``statement`` run in a fresh interpreter where the
    module ``blocked`` cannot be imported ("" when it raises none)."""
    code = (f"import sys; sys.modules[{blocked!r}] = None\n"
            f"try:\n    {statement}\nexcept ImportError as error:\n    print(error)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120, env=environment())
    assert result.returncode == 0, result.stderr
    return result.stdout

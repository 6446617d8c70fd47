"""examples/distributed_mlp.py prints the same final accuracy and loss with one process and
with two (mpirun -np 2)."""

import pathlib

import pytest
from harness import mpi

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "distributed_mlp.py"
ARGUMENTS = ["--samples", "3000", "--epochs", "2", "--dtype", "float64", "--min-accuracy", "0.7"]


def _final(result):
    mpi.check(result)
    lines = result.stdout.splitlines()
    return [line for line in lines if line.startswith(("final accuracy", "final loss"))]


@pytest.mark.skipif(mpi.MPI_MISSING is not None, reason=mpi.MPI_MISSING or "")
def test_one_and_two_processes_print_the_same_accuracy():
    single = _final(mpi.run(ARGUMENTS, processes=None, script=EXAMPLE))
    double = mpi.run(ARGUMENTS, processes=2, script=EXAMPLE)
    assert "processes: 2" in double.stdout
    assert single == _final(double) and len(single) == 2
    assert float(single[0].split()[-1]) >= 0.7

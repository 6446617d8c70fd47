"""MPICommunicator's collectives on 2 processes (mpirun), and its ImportError naming the
``[mpi]`` extra when mpi4py is missing."""

import numpy as np
from harness import mpi

from lamina.highlevel.distribution.mpi import MPI_EXTRA_HINT


@mpi.needs_mpi
def test_collectives_on_two_processes(tmp_path):
    out = tmp_path / "c"
    mpi.check(mpi.run(["collectives", out]))
    for rank in (0, 1):
        result = np.load(f"{out}.rank{rank}.npz")
        np.testing.assert_array_equal(result["summed"], np.arange(6) * 3.0)
        np.testing.assert_array_equal(result["started"], np.full(5, 3.0, "float32"))
        np.testing.assert_array_equal(result["broadcast"], np.ones(3))   # root=1's
        assert int(result["chief"]) == 0
        assert result["everyone"].tolist() == [0, 10]
        assert int(result["size"]) == 2 and str(result["name"]) == "mpi"


def test_missing_mpi4py_names_the_extra():
    message = mpi.import_error_message(
        "mpi4py", "from lamina.distribution import MPICommunicator; MPICommunicator()")
    assert "pip install lamina[mpi]" in message
    assert "pip install lamina[mpi]" in MPI_EXTRA_HINT

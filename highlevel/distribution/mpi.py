"""The MPI communicator (mpi4py), for CPU processes on one machine or across hosts."""

import sys

import numpy as np

from ...backends import state
from .communicator import Communicator

MPI_EXTRA_HINT = ("pip install lamina[mpi]  (mpi4py + Open MPI wheels; or `pip install "
                  "mpi4py` built against your system MPI)")


def import_mpi():
    """mpi4py's ``MPI`` module (importing it initializes MPI); an ImportError naming the
    ``[mpi]`` extra when mpi4py is missing."""
    try:
        from mpi4py import MPI
    except ImportError as error:
        raise ImportError("lamina.distribution over MPI needs mpi4py and an MPI library: "
                          f"{MPI_EXTRA_HINT}") from error
    return MPI


class _Request:
    """A non-blocking MPI sum: ``test`` lets it progress, ``wait`` completes it."""

    def __init__(self, request):
        self._request = request

    def test(self):
        """Let the sum progress; True once it is complete."""
        return self._request.Test()

    def wait(self):
        """Complete the sum."""
        self._request.Wait()


class _HostStaged(_Request):
    """A non-blocking sum staged through host memory (a device array, non-CUDA-aware
    MPI): ``wait`` completes it and copies the result back to the device."""

    def __init__(self, request, host, device):
        super().__init__(request)
        self._host, self._device = host, device

    def wait(self):
        """Complete the sum and write it back into the device array."""
        self._request.Wait()
        self._device[...] = state.backend().asarray(self._host)


class MPICommunicator(Communicator):
    """Collectives over an MPI communicator (``MPI.COMM_WORLD`` by default).

    NumPy arrays are summed in place (``MPI.IN_PLACE``); arrays of another engine (CuPy)
    are staged through host memory -- use :class:`NCCLCommunicator` on GPUs.

    Args:
        comm: an ``mpi4py.MPI.Comm``; None for ``MPI.COMM_WORLD``.
    """

    name = "mpi"

    def __init__(self, comm=None):
        self._mpi = import_mpi()
        self.comm = self._mpi.COMM_WORLD if comm is None else comm

    @property
    def rank(self):
        return self.comm.Get_rank()

    @property
    def size(self):
        return self.comm.Get_size()

    def allreduce(self, array):
        if isinstance(array, np.ndarray):
            self.comm.Allreduce(self._mpi.IN_PLACE, array, op=self._mpi.SUM)
            return array
        host = np.ascontiguousarray(state.backend().to_numpy(array))
        self.comm.Allreduce(self._mpi.IN_PLACE, host, op=self._mpi.SUM)
        array[...] = state.backend().asarray(host)
        return array

    def allreduce_start(self, array):
        if isinstance(array, np.ndarray):
            return _Request(self.comm.Iallreduce(self._mpi.IN_PLACE, array,
                                                 op=self._mpi.SUM))
        host = np.ascontiguousarray(state.backend().to_numpy(array))
        request = self.comm.Iallreduce(self._mpi.IN_PLACE, host, op=self._mpi.SUM)
        return _HostStaged(request, host, array)

    def broadcast(self, array, root=0):
        if isinstance(array, np.ndarray):
            self.comm.Bcast(array, root=root)
            return array
        host = np.ascontiguousarray(state.backend().to_numpy(array))
        self.comm.Bcast(host, root=root)
        array[...] = state.backend().asarray(host)
        return array

    def broadcast_object(self, value, root=0):
        return self.comm.bcast(value, root=root)

    def allgather_object(self, value):
        return self.comm.allgather(value)

    def barrier(self):
        self.comm.Barrier()

    def abort(self, code=1):
        sys.stdout.flush()
        sys.stderr.flush()
        self.comm.Abort(code)

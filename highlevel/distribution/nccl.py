"""The NCCL communicator: sums and broadcasts of CuPy device buffers through NCCL
(``cupy.cuda.nccl``), bootstrapped and aborted through MPI, for the CuPy engine."""

import os

from .communicator import Communicator
from .mpi import MPICommunicator

_NCCL_HINT = ("the NCCL communicator needs CuPy with NCCL (pip install cupy-cuda12x; "
              "python -m cupyx.tools.install_library --library nccl --cuda 12.x) and a GPU")


def _import_nccl():
    try:
        import cupy
        from cupy.cuda import nccl
    except ImportError as error:
        raise ImportError(_NCCL_HINT) from error
    if not nccl.available:
        raise ImportError(_NCCL_HINT + "; CuPy was built without NCCL")
    return cupy, nccl


class NCCLCommunicator(Communicator):
    """Collectives on CuPy device arrays through NCCL; one GPU per process.

    The NCCL unique id is shared through ``bootstrap`` (an :class:`MPICommunicator`,
    which also carries the Python-object collectives and the abort). Each process uses
    GPU ``local_rank % device_count`` (``OMPI_COMM_WORLD_LOCAL_RANK`` or
    ``LOCAL_RANK``).

    Args:
        bootstrap: the MPI communicator of the job; None makes one on ``COMM_WORLD``.
    """

    name = "nccl"

    def __init__(self, bootstrap=None):
        self._cupy, self._nccl = _import_nccl()
        self.bootstrap = bootstrap or MPICommunicator()
        local = int(os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK",
                                   os.environ.get("LOCAL_RANK", self.bootstrap.rank)))
        self._cupy.cuda.Device(local % self._cupy.cuda.runtime.getDeviceCount()).use()
        unique_id = self._nccl.get_unique_id() if self.bootstrap.rank == 0 else None
        unique_id = self.bootstrap.broadcast_object(unique_id)
        self.comm = self._nccl.NcclCommunicator(self.bootstrap.size, unique_id,
                                                self.bootstrap.rank)
        self._types = {"float16": self._nccl.NCCL_FLOAT16,
                       "float32": self._nccl.NCCL_FLOAT32,
                       "float64": self._nccl.NCCL_FLOAT64,
                       "int32": self._nccl.NCCL_INT32, "int64": self._nccl.NCCL_INT64}

    @property
    def rank(self):
        return self.bootstrap.rank

    @property
    def size(self):
        return self.bootstrap.size

    def _device(self, array):
        """(device array, its NCCL type code); host arrays are moved to the device."""
        device = self._cupy.asarray(array)
        if not device.flags.c_contiguous:
            raise ValueError("NCCLCommunicator needs C-contiguous arrays")
        code = self._types.get(device.dtype.name)
        if code is None:
            raise ValueError(f"NCCLCommunicator: unsupported dtype {device.dtype.name}; "
                             f"supported: {sorted(self._types)}")
        return device, code

    def allreduce(self, array):
        device, code = self._device(array)
        stream = self._cupy.cuda.get_current_stream()
        self.comm.allReduce(device.data.ptr, device.data.ptr, device.size, code,
                            self._nccl.NCCL_SUM, stream.ptr)
        stream.synchronize()
        if device is not array:
            array[...] = self._cupy.asnumpy(device)
        return array

    def broadcast(self, array, root=0):
        device, code = self._device(array)
        stream = self._cupy.cuda.get_current_stream()
        self.comm.bcast(device.data.ptr, device.size, code, root, stream.ptr)
        stream.synchronize()
        if device is not array:
            array[...] = self._cupy.asnumpy(device)
        return array

    def broadcast_object(self, value, root=0):
        return self.bootstrap.broadcast_object(value, root)

    def allgather_object(self, value):
        return self.bootstrap.allgather_object(value)

    def barrier(self):
        self.bootstrap.barrier()

    def abort(self, code=1):
        try:
            self.comm.abort()
        finally:
            self.bootstrap.abort(code)

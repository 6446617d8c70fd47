"""The job this process belongs to: ``initialize``, the communicator, ``num_processes``,
``process_id``, ``list_devices``, and the excepthook that ends the whole job when one
process raises."""

import os
import sys

from ...backends import replica, state
from .communicator import Communicator, SingleProcessCommunicator

# Variables the MPI launchers set in every process they start (Open MPI, PMIx, MPICH /
# Intel MPI's Hydra, MVAPICH).
MPI_ENVIRONMENT = ("OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK",
                   "MV2_COMM_WORLD_SIZE", "MPI_LOCALNRANKS")
COMMUNICATORS = ("auto", "mpi", "nccl", "single")

_job = {"communicator": None, "excepthook": None}


def launched_by_mpi():
    """True when this process was started by an MPI launcher (``mpirun``/``mpiexec``/
    ``srun --mpi``)."""
    return any(name in os.environ for name in MPI_ENVIRONMENT)


def _make_communicator(kind):
    if isinstance(kind, Communicator):
        return kind
    if kind == "auto":
        kind = "single" if not launched_by_mpi() else (
            "nccl" if state.backend().name == "cupy" else "mpi")
    if kind == "single":
        return SingleProcessCommunicator()
    if kind == "nccl":
        from .nccl import NCCLCommunicator

        return NCCLCommunicator()
    from .mpi import MPICommunicator

    return MPICommunicator()


def initialize(job_addresses=None, num_processes=None, process_id=None, communicator="auto"):
    """Join the job this process was launched in (Keras 3's
    ``keras.distribution.initialize``).

    Under ``mpirun -np N python train.py`` this starts MPI (mpi4py; NCCL on the CuPy
    engine) and installs an excepthook that aborts the job when this process raises, so a
    failing process ends every process within seconds instead of leaving them waiting.
    Without an MPI launcher it is a job of one process and costs nothing. Calling it
    again returns at once.

    Args:
        job_addresses: accepted for Keras compatibility; the MPI launcher knows the hosts
            (``mpirun -H host1,host2``), so it is not used.
        num_processes, process_id: optional checks: a ValueError if the launched job has
            another size or gives this process another rank.
        communicator: ``"auto"`` (MPI under an MPI launcher -- NCCL on the CuPy engine --
            else one process), ``"mpi"``, ``"nccl"``, ``"single"``, or a
            :class:`Communicator` instance (another transport).

    Raises:
        ImportError: launched by MPI but mpi4py is missing (``pip install lamina[mpi]``).
    """
    del job_addresses   # the MPI launcher places the processes
    if not isinstance(communicator, Communicator) and communicator not in COMMUNICATORS:
        raise ValueError(f"initialize: communicator must be a Communicator or one of "
                         f"{list(COMMUNICATORS)}. Received: communicator={communicator!r}")
    current = _job["communicator"]
    if current is None:
        current = _make_communicator(communicator)
        _job["communicator"] = current
        if current.size > 1:
            _install_excepthook(current)
            replica.set_cross_replica_sum(current.allreduce)
    if num_processes is not None and int(num_processes) != current.size:
        raise ValueError(f"initialize: num_processes={num_processes} but the job has "
                         f"{current.size} processes")
    if process_id is not None and int(process_id) != current.rank:
        raise ValueError(f"initialize: process_id={process_id} but this process is rank "
                         f"{current.rank}")


def get_communicator():
    """The job's :class:`Communicator` (initializing a one-process job if needed)."""
    if _job["communicator"] is None:
        initialize()
    return _job["communicator"]


def num_processes():
    """The number of processes in the job (1 without MPI)."""
    return get_communicator().size


def process_id():
    """This process' rank, ``0 <= process_id() < num_processes()``; 0 is the chief."""
    return get_communicator().rank


def list_devices(device_type=None):
    """One device per process of the job, as ``"cpu:<rank>"`` (``"gpu:<rank>"`` on the
    CuPy engine), like Keras' ``keras.distribution.list_devices``; ``device_type``
    (``"cpu"``/``"gpu"``) keeps only that kind."""
    kind = "gpu" if state.backend().name == "cupy" else "cpu"
    if device_type is not None and str(device_type).lower() != kind:
        return []
    return [f"{kind}:{rank}" for rank in range(num_processes())]


def _install_excepthook(communicator):
    """Print an uncaught exception's traceback, then abort every process of the job."""
    previous = sys.excepthook

    def abort_job(kind, value, traceback):
        previous(kind, value, traceback)
        sys.stderr.write(f"lamina.distribution: process {communicator.rank} of "
                         f"{communicator.size} raised {kind.__name__}; aborting the job\n")
        communicator.abort(1)

    sys.excepthook = abort_job
    _job["excepthook"] = abort_job

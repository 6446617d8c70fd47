"""``lamina.distribution``: data-parallel training over MPI (mpi4py) on CPUs and NCCL on
GPUs, in the shape of Keras 3's ``keras.distribution``.

    lamina.distribution.initialize()                  # reads the MPI environment
    lamina.distribution.set_distribution(lamina.distribution.DataParallel())
    model.fit(x, y, batch_size=256)                   # mpirun -np 4 python train.py

Without an MPI launcher (one process), ``DataParallel`` splits each training batch over
the engine's threads instead (:mod:`.thread_replicas`); with no distribution set,
everything is plain single-process training.
"""

from .communicator import Communicator, SingleProcessCommunicator
from .data_parallel import DataParallel, distribution, set_distribution
from .mpi import MPICommunicator
from .nccl import NCCLCommunicator
from .runtime import (get_communicator, initialize, launched_by_mpi, list_devices,
                      num_processes, process_id)

__all__ = [
    "Communicator", "DataParallel", "MPICommunicator", "NCCLCommunicator",
    "SingleProcessCommunicator", "distribution", "get_communicator", "initialize",
    "launched_by_mpi", "list_devices", "num_processes", "process_id", "set_distribution",
]

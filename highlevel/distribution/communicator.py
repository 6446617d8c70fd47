"""The communicator interface data-parallel training talks to, and its one-process form.

A communicator is the transport between the processes of a job: a handful of
collectives on engine arrays (sum, broadcast), two on small Python objects, and an abort
that ends every process. :class:`~lamina.distribution.MPICommunicator` (mpi4py) and
:class:`~lamina.distribution.NCCLCommunicator` (NCCL through CuPy, device buffers)
implement it; another transport is one more subclass.
"""


class Communicator:
    """Collectives between the ``size`` processes of a job; this process is ``rank``.

    Every method is collective: each process calls it in the same order (the training
    loop guarantees that), else the job hangs.
    """

    #: short name of the transport (``"mpi"``, ``"nccl"``, ``"single"``)
    name = "abstract"

    @property
    def rank(self):
        """This process' index, ``0 <= rank < size``; rank 0 is the chief."""
        raise NotImplementedError

    @property
    def size(self):
        """The number of processes in the job."""
        raise NotImplementedError

    def allreduce(self, array):
        """Sum the engine array ``array`` over every process, in place; returns it."""
        raise NotImplementedError

    def allreduce_start(self, array):
        """Start summing ``array`` in place without waiting; returns a request whose
        ``wait()`` completes it and whose ``test()`` lets it progress without blocking
        (the default completes it at once)."""
        self.allreduce(array)
        return _Done()

    def broadcast(self, array, root=0):
        """Overwrite the engine array ``array`` with ``root``'s, in place; returns it."""
        raise NotImplementedError

    def broadcast_object(self, value, root=0):
        """``root``'s ``value`` (a small picklable Python object) on every process."""
        raise NotImplementedError

    def allgather_object(self, value):
        """``[value of rank 0, value of rank 1, ...]`` on every process."""
        raise NotImplementedError

    def barrier(self):
        """Wait until every process has called it."""
        raise NotImplementedError

    def abort(self, code=1):
        """End every process of the job now with exit status ``code`` (never returns)."""
        raise NotImplementedError


class _Done:
    """The request of a collective that already completed."""

    def wait(self):
        """Nothing left to wait for."""

    def test(self):
        """Complete already."""
        return True


class SingleProcessCommunicator(Communicator):
    """The communicator of a job of one process: every collective is the identity."""

    name = "single"

    @property
    def rank(self):
        return 0

    @property
    def size(self):
        return 1

    def allreduce(self, array):
        return array

    def broadcast(self, array, root=0):
        return array

    def broadcast_object(self, value, root=0):
        return value

    def allgather_object(self, value):
        return [value]

    def barrier(self):
        return None

    def abort(self, code=1):
        raise SystemExit(code)

"""The communicator interface and its one-process form."""

import numpy as np
import pytest

from lamina.distribution import Communicator, SingleProcessCommunicator


def test_single_process_collectives_are_the_identity():
    communicator = SingleProcessCommunicator()
    assert (communicator.rank, communicator.size, communicator.name) == (0, 1, "single")
    array = np.arange(4.0)
    assert communicator.allreduce(array) is array
    communicator.allreduce_start(array).wait()
    assert communicator.broadcast(array) is array
    np.testing.assert_array_equal(array, np.arange(4.0))
    assert communicator.broadcast_object({"a": 1}) == {"a": 1}
    assert communicator.allgather_object(3) == [3]
    communicator.barrier()
    with pytest.raises(SystemExit):
        communicator.abort(3)


def test_a_transport_implements_the_abstract_methods():
    bare = Communicator()
    for call in (lambda: bare.rank, lambda: bare.size, lambda: bare.allreduce(np.ones(1)),
                 lambda: bare.broadcast(np.ones(1)), lambda: bare.broadcast_object(1),
                 lambda: bare.allgather_object(1), bare.barrier, bare.abort):
        with pytest.raises(NotImplementedError):
            call()


class _Summing(SingleProcessCommunicator):
    """A transport written against the interface: only allreduce differs."""

    def allreduce(self, array):
        array *= 2
        return array


def test_allreduce_start_defaults_to_the_blocking_sum():
    array = np.ones(3)
    request = _Summing().allreduce_start(array)
    np.testing.assert_array_equal(array, np.full(3, 2.0))   # done at once
    assert request.test() is True
    request.wait()

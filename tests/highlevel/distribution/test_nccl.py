"""NCCLCommunicator: it needs CuPy with NCCL and a GPU; without them it says what to
install. (Its collectives are unverified on this CPU-only CI.)"""

import pytest
from harness import mpi


def _cupy_with_gpu():
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:   # no CuPy, no driver, no device
        return False


def test_missing_cupy_names_what_to_install():
    message = mpi.import_error_message(
        "cupy", "from lamina.distribution import NCCLCommunicator; NCCLCommunicator()")
    assert "NCCL" in message and "cupy" in message


@pytest.mark.skipif(not _cupy_with_gpu(), reason="needs CuPy and an NVIDIA GPU")
@mpi.needs_mpi
def test_allreduce_and_broadcast_on_one_gpu():
    import cupy

    from lamina.distribution import NCCLCommunicator

    communicator = NCCLCommunicator()
    array = cupy.arange(4, dtype="float32")
    communicator.allreduce(array)
    communicator.broadcast(array)
    assert cupy.asnumpy(array).tolist() == [0.0, 1.0, 2.0, 3.0]

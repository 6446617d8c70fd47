"""initialize / num_processes / process_id / list_devices without MPI (a job of one
process), and the excepthook that ends a 2-process job when one process raises."""

import numpy as np
import pytest
from harness import mpi

import lamina
from lamina import distribution, layers
from lamina.highlevel.distribution import runtime


def test_without_mpi_the_job_is_one_process():
    distribution.initialize()
    distribution.initialize(num_processes=1, process_id=0)    # again: returns at once
    assert distribution.num_processes() == 1
    assert distribution.process_id() == 0
    assert distribution.list_devices() == ["cpu:0"]
    assert distribution.list_devices("gpu") == []
    assert distribution.get_communicator().name == "single"


def test_initialize_checks_the_job_it_joins():
    with pytest.raises(ValueError, match="num_processes=4 but the job has 1"):
        distribution.initialize(num_processes=4)
    with pytest.raises(ValueError, match="process_id=2 but this process is rank 0"):
        distribution.initialize(process_id=2)


def test_unknown_communicator_is_a_value_error():
    with pytest.raises(ValueError, match="communicator must be"):
        distribution.initialize(communicator="carrier-pigeon")


def test_launcher_detection(monkeypatch):
    for name in runtime.MPI_ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    assert not distribution.launched_by_mpi()
    monkeypatch.setenv("OMPI_COMM_WORLD_SIZE", "2")
    assert distribution.launched_by_mpi()


def test_single_process_fit_under_a_data_parallel_distribution_trains_as_without():
    # one process: the batches are split over the threads (test_thread_replicas), which
    # changes only the order of float sums
    x = np.random.default_rng(0).normal(size=(40, 3)).astype("float32")
    y = x.sum(axis=1, keepdims=True)

    def trained(parallel):
        distribution.set_distribution(distribution.DataParallel() if parallel else None)
        try:
            lamina.utils.set_random_seed(3)
            model = lamina.Sequential([layers.Input((3,)), layers.Dense(4),
                                       layers.Dropout(0.2), layers.Dense(1)])
            model.compile("adam", "mse")
            model.fit(x, y, batch_size=16, epochs=2, verbose=0)
            return model.get_weights(), model.predict(x, verbose=0)
        finally:
            distribution.set_distribution(None)

    plain, parallel = trained(False), trained(True)
    for a, b in zip(plain[0] + [plain[1]], parallel[0] + [parallel[1]]):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-6)


@mpi.needs_mpi
def test_a_raising_process_ends_the_job_with_its_traceback(tmp_path):
    # 1000 epochs: without the abort, rank 0 would wait in its next allreduce forever
    result = mpi.run(["raise", tmp_path / "r"], timeout=120)
    assert result.returncode != 0
    assert "ValueError: boom from rank 1" in result.stderr
    assert "Traceback" in result.stderr
    assert "process 1 of 2 raised ValueError; aborting the job" in result.stderr

"""The training loop's data-parallel hook: shares of a batch, the announced share, metric
results from summed states, predict's gather and rank 0's decisions -- on a simulated
second process -- and, on 2 real processes (mpirun), checkpoints written once by rank 0
and EarlyStopping / a rank-0 stop ending both processes at the same epoch."""

import numpy as np
from harness import mpi

import lamina
from lamina import metrics, ops
from lamina.backends import replica
from lamina.distribution import SingleProcessCommunicator
from lamina.highlevel.distribution.training_hook import DataParallelHook


class _Peer(SingleProcessCommunicator):
    """Rank ``rank`` of 2, the other process simulated: its sums add ``peer`` arrays,
    its gathers append ``peer_object``, broadcasts give ``chief_object`` when set."""

    def __init__(self, rank=0, peer=(), peer_object=None, chief_object=None):
        self._rank, self.peer, self.peer_object = rank, list(peer), peer_object
        self.chief_object = chief_object

    @property
    def rank(self):
        return self._rank

    @property
    def size(self):
        return 2

    def allreduce(self, array):
        array += self.peer.pop(0)
        return array

    def allgather_object(self, value):
        return [value, self.peer_object] if self._rank == 0 else [self.peer_object, value]

    def broadcast_object(self, value, root=0):
        return value if self.chief_object is None else self.chief_object


def test_shares_are_contiguous_and_cover_the_batch():
    for rows in (1, 2, 7, 32):
        shares = [DataParallelHook(_Peer(rank)).share(rows) for rank in (0, 1)]
        assert shares[0][0] == 0 and shares[0][1] == shares[1][0] and shares[1][1] == rows
        assert abs((shares[0][1] - shares[0][0]) - (shares[1][1] - shares[1][0])) <= 1


def test_local_batches_slice_every_array_and_announce_the_share():
    hook = DataParallelHook(_Peer(rank=1))
    x = {"a": np.arange(10).reshape(5, 2), "b": np.arange(5)}
    batches = hook.local_batches(iter([(x, [np.arange(5)], np.ones(5))]))
    bx, by, bw = next(batches)
    assert bx["a"].tolist() == [[4, 5], [6, 7], [8, 9]] and bx["b"].tolist() == [2, 3, 4]
    assert by[0].tolist() == [2, 3, 4] and bw.tolist() == [1, 1, 1]
    assert replica.current_share() == (5, 2, 5)
    assert replica.share_fraction() == 0.6
    assert list(batches) == []
    assert replica.current_share() is None


def test_unsharded_data_keeps_its_rows_and_announces_nothing():
    hook = DataParallelHook(_Peer(rank=1), auto_shard_dataset=False)
    bx, _, _ = next(hook.local_batches(iter([(np.arange(4), None, None)])))
    assert bx.tolist() == [0, 1, 2, 3] and replica.current_share() is None


def test_metric_results_come_from_the_summed_states_and_leave_them_local():
    accuracy = metrics.BinaryAccuracy()
    accuracy.update_state(np.array([1.0, 0.0]), np.array([0.9, 0.9]))    # 1 of 2 right
    local_states = [np.array(v.data if hasattr(v, "data") else v) for v in accuracy.variables]
    peer = [np.array([3.0, 3.0])]                                        # 3 of 3 right
    result = DataParallelHook(_Peer(peer=peer)).metrics_result([accuracy])
    assert result == {"binary_accuracy": 4.0 / 5.0}
    assert float(accuracy.result()) == 0.5
    assert [np.array(v.data if hasattr(v, "data") else v).tolist()
            for v in accuracy.variables] == [s.tolist() for s in local_states]


def test_gather_orders_rows_batch_by_batch_in_rank_order():
    mine = [[np.array([0, 1]), np.array([4])]]          # rank 0: rows of batches 0 and 1
    theirs = [[np.array([2, 3]), np.array([5])]]
    gathered = DataParallelHook(_Peer(peer_object=theirs)).gather(mine)
    assert np.concatenate(gathered[0]).tolist() == [0, 1, 2, 3, 4, 5]


class _Counting(_Peer):
    """A second process that contributes nothing; counts the sums started."""

    calls = 0

    def allreduce(self, array):
        self.calls += 1
        return array


def test_bucket_sums_start_during_the_backward_pass_and_apply_completes_them():
    communicator = _Counting()
    hook = DataParallelHook(communicator, bucket_bytes=16)      # 2 float64 per bucket
    variables = [lamina.Variable(np.full((4,), 1.0 + i)) for i in range(3)]
    report = hook.overlap(variables)
    started = []

    def on_gradient(position, gradient):
        report(position, gradient)
        started.append(communicator.calls)

    x = np.arange(4.0)
    hidden = ops.tanh(x * variables[0]) * variables[1]
    grads = lamina.grad(ops.sum(ops.tanh(hidden) * variables[2]), variables,
                        on_gradient=on_gradient)
    assert started == [2, 4, 7]        # buckets of 13 elements: sums start as gradients end
    averaged = hook.reduce_gradients(grads)
    assert communicator.calls == 7     # completed, not summed again
    for got, expected in zip(averaged, grads):
        np.testing.assert_allclose(got, expected.numpy(), rtol=1e-15)
    assert hook.overlap([]) is None    # nothing to train: nothing in flight
    assert DataParallelHook(communicator).overlap(variables) is None      # one bucket
    assert DataParallelHook(communicator, overlap=False).overlap(variables) is None


class _Model:
    class optimizer:
        learning_rate = 0.1

    stop_training = False


def test_rank_zero_decisions_are_applied_everywhere():
    model = _Model()
    DataParallelHook(_Peer(rank=1, chief_object=(True, 0.01))).sync_decisions(model)
    assert model.stop_training is True and model.optimizer.learning_rate == 0.01


@mpi.needs_mpi
def test_checkpoints_and_logs_are_written_once_by_rank_zero(tmp_path):
    mpi.check(mpi.run(["checkpoint", tmp_path]))
    assert (tmp_path / "writers.txt").read_text().split() == ["0", "0", "0"]
    assert sorted(p.name for p in tmp_path.glob("*.weights.h5")) == [
        f"model_{epoch}.weights.h5" for epoch in (1, 2, 3)]
    lines = (tmp_path / "log.csv").read_text().splitlines()
    assert lines[0].startswith("epoch,") and len(lines) == 4      # one header, 3 epochs


@mpi.needs_mpi
def test_early_stopping_stops_both_processes_at_the_single_process_epoch(tmp_path):
    mpi.check(mpi.run(["early_stopping", tmp_path / "single"], processes=None))
    mpi.check(mpi.run(["early_stopping", tmp_path / "multi"]))
    epochs = {(tmp_path / name).read_text().strip()
              for name in ("single.rank0.txt", "multi.rank0.txt", "multi.rank1.txt")}
    assert len(epochs) == 1 and 1 < int(epochs.pop()) < 40


@mpi.needs_mpi
def test_a_stop_decided_on_rank_zero_only_stops_both(tmp_path):
    mpi.check(mpi.run(["early_stopping", tmp_path / "m", "--chief-stop", 1]))
    assert [(tmp_path / f"m.rank{r}.txt").read_text().strip() for r in (0, 1)] == ["2", "2"]

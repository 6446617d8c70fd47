"""GradientAverager: sum_r w_r g_r / sum_r w_r from one flat buffer, in buckets, with a
simulated second process."""

import numpy as np
import pytest

import lamina
from lamina.distribution import SingleProcessCommunicator
from lamina.highlevel.distribution.gradient_buckets import GradientAverager


class _Peer(SingleProcessCommunicator):
    """Sums add the matching slice of the other process' flat buffer; counts calls."""

    def __init__(self, peer_flat):
        self.peer_flat, self.offset, self.calls, self.started = peer_flat, 0, 0, 0

    def allreduce(self, array):
        array += self.peer_flat[self.offset:self.offset + array.size]
        self.offset += array.size
        self.calls += 1
        return array

    def allreduce_start(self, array):
        self.started += 1
        return super().allreduce_start(array)


def _gradients(seed):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(3, 4)), None, rng.normal(size=(4,)), rng.normal(size=(2, 2))]


def _peer_flat(gradients, weight):
    """What the other process packs: last gradient first, then its weight."""
    present = [g for g in gradients if g is not None][::-1]
    return np.concatenate([weight * g.reshape(-1) for g in present] + [[weight]])


@pytest.mark.parametrize("bucket_bytes", [1 << 20, 40])   # one bucket; many buckets
def test_weighted_average_over_processes(bucket_bytes):
    mine, theirs = _gradients(0), _gradients(1)
    communicator = _Peer(_peer_flat(theirs, 1.0))
    averaged = GradientAverager(communicator, bucket_bytes).average(mine, 3.0)
    assert averaged[1] is None
    for got, a, b in zip(averaged, mine, theirs):
        if a is not None:
            np.testing.assert_allclose(got, (3.0 * a + 1.0 * b) / 4.0, rtol=1e-14)
            assert got.shape == a.shape
    assert communicator.offset == 3 * 4 + 4 + 2 * 2 + 1      # the whole buffer, once
    assert (communicator.calls, communicator.started) == (
        (1, 0) if bucket_bytes > 1000 else (5, 5))             # 40 bytes: 5 float64 each


def test_a_process_with_no_rows_contributes_nothing():
    mine, theirs = _gradients(0), _gradients(1)
    averaged = GradientAverager(_Peer(_peer_flat(theirs, 2.0))).average(mine, 0.0)
    np.testing.assert_allclose(averaged[0], theirs[0], rtol=1e-14)


def test_every_process_empty_is_an_error():
    with pytest.raises(ValueError, match="empty share"):
        GradientAverager(SingleProcessCommunicator()).average(_gradients(0), 0.0)


def test_bad_bucket_size_and_all_none():
    with pytest.raises(ValueError, match="bucket_bytes"):
        GradientAverager(SingleProcessCommunicator(), 0)
    assert GradientAverager(SingleProcessCommunicator()).average([None], 1.0) == [None]


def test_an_overlapped_average_starts_each_bucket_once_its_gradients_are_reported():
    mine, theirs = [g for g in _gradients(0) if g is not None], \
        [g for g in _gradients(1) if g is not None]
    communicator = _Peer(_peer_flat(theirs, 1.0))
    variables = [lamina.Variable(np.zeros_like(g)) for g in mine]
    # 40-byte buckets of the buffer [g2 (4), g1 (4), g0 (12), weight]: g2 fills bucket 0
    # with g1; g1 opens bucket 1, which g0 completes with buckets 2 and 3 (4: the weight)
    in_flight = GradientAverager(communicator, 40).begin(variables, 3.0)
    started = []
    for index in (2, 1, 0):                   # the order a backward pass reports them
        in_flight.pack(index, mine[index])
        started.append(communicator.offset)
    assert started == [0, 5, 21]              # bucket 0 once g2 and g1 are in; then all
    assert in_flight.matches(mine) and not in_flight.matches(mine[:2])
    averaged = in_flight.finish(mine)
    for got, a, b in zip(averaged, mine, theirs):
        np.testing.assert_allclose(got, (3.0 * a + 1.0 * b) / 4.0, rtol=1e-14)


def test_buckets_start_in_order_whatever_order_the_gradients_come_in():
    mine = [g for g in _gradients(0) if g is not None]
    communicator = _Peer(np.zeros(21))
    variables = [lamina.Variable(np.zeros_like(g)) for g in mine]
    in_flight = GradientAverager(communicator, 40).begin(variables, 1.0)
    in_flight.pack(0, mine[0])                # buckets 2 and 3 are complete, 0 is not
    assert communicator.offset == 0
    in_flight.finish(mine)                    # the rest packed from what apply received
    assert communicator.offset == 21 and communicator.started == 5

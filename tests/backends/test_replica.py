"""The data-parallel share the training loop announces to the layers: the global batch's
draw and this process' rows of it, the cross-process sum, the share's weight; and the
same over the threads of one step (a ThreadGroup)."""

import threading

import numpy as np

from lamina.backends import replica


def _draw(seed):
    return lambda shape: np.random.default_rng(seed).uniform(size=shape)


def test_without_a_share_the_draw_is_the_single_process_one():
    np.testing.assert_array_equal(replica.draw_rows(_draw(0), (4, 3)), _draw(0)((4, 3)))
    assert replica.share_fraction() == 1.0
    assert replica.current_share() is None


def test_a_share_draws_the_global_batch_and_keeps_its_rows():
    replica.set_share((10, 6, 10))
    try:
        np.testing.assert_array_equal(replica.draw_rows(_draw(1), (4, 3)),
                                      _draw(1)((10, 3))[6:10])
        # a draw whose first axis is not the share's rows is not a batch draw
        np.testing.assert_array_equal(replica.draw_rows(_draw(1), (5, 3)), _draw(1)((5, 3)))
        assert replica.share_fraction() == 0.4
    finally:
        replica.set_share(None)


def test_cross_replica_sum_applies_only_inside_a_step():
    replica.set_cross_replica_sum(lambda array: array * 2)
    try:
        assert replica.cross_replica_sum(np.ones(2)).tolist() == [1.0, 1.0]
        replica.set_share((4, 0, 2))
        assert replica.cross_replica_sum(np.ones(2)).tolist() == [2.0, 2.0]
    finally:
        replica.set_share(None)
        replica.set_cross_replica_sum(None)
    assert replica.cross_replica_sum(np.ones(2)).tolist() == [1.0, 1.0]


def test_reduce_gradients_is_the_registered_reducer_except_inside_gradients_reduced():
    gradients = [np.ones(2)]
    assert replica.reduce_gradients(gradients) is gradients
    replica.set_gradient_reducer(lambda grads: [g * 2 for g in grads])
    try:
        assert replica.reduce_gradients(gradients)[0].tolist() == [2.0, 2.0]
        with replica.gradients_reduced():
            assert replica.reduce_gradients(gradients) is gradients
        assert replica.reduce_gradients(gradients)[0].tolist() == [2.0, 2.0]
    finally:
        replica.set_gradient_reducer(None)


def _in_threads(size, work):
    """``[work(rank) for rank in range(size)]``, each on its own thread at once."""
    results, errors = [None] * size, []

    def run(rank):
        try:
            results[rank] = work(rank)
        except BaseException as raised:   # noqa: B036 - reported by the test
            errors.append(raised)

    threads = [threading.Thread(target=run, args=(rank,)) for rank in range(size)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not any(thread.is_alive() for thread in threads)
    return results, errors


def _thread_share(group, rank):
    """Announce thread ``rank``'s share of a 10-row batch split 4 / 6."""
    start, stop = ((0, 4), (4, 10))[rank]
    replica.set_share((10, start, stop), (group, rank))


def test_a_thread_group_sums_over_its_threads_and_draws_once_for_all():
    group, draws = replica.ThreadGroup(2), []

    def draw(shape):
        draws.append(shape)
        return _draw(5)(shape)

    def work(rank):
        _thread_share(group, rank)
        try:
            total = replica.cross_replica_sum(np.full(2, rank + 1.0))
            rows = replica.draw_rows(draw, ((4, 6)[rank], 3))
            shared = replica.draw_shared(draw, (1, 3))
            return total, rows, shared, replica.share_fraction()
        finally:
            replica.set_share(None)

    (first, second), errors = _in_threads(2, work)
    assert not errors
    assert first[0].tolist() == second[0].tolist() == [3.0, 3.0]
    whole = _draw(5)((10, 3))
    np.testing.assert_array_equal(np.concatenate([first[1], second[1]]), whole)
    np.testing.assert_array_equal(first[2], second[2])     # one draw for both threads
    assert sorted(draws) == [(1, 3), (10, 3)]              # only the first thread drew
    assert (first[3], second[3]) == (0.4, 0.6)


def test_a_failing_thread_releases_the_others_from_their_waits():
    group = replica.ThreadGroup(2)

    def work(rank):
        _thread_share(group, rank)
        try:
            if rank == 1:
                group.abort()
                raise KeyError("share 1 failed")
            return replica.cross_replica_sum(np.ones(1))
        finally:
            replica.set_share(None)

    _, errors = _in_threads(2, work)
    assert sorted(type(e).__name__ for e in errors) == ["BrokenBarrierError", "KeyError"]

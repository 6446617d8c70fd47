"""The data-parallel share the training loop announces to the layers: the global batch's
draw and this process' rows of it, the cross-process sum, the share's weight."""

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

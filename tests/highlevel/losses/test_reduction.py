"""Reductions in a data-parallel step: each share's loss divides by the global batch's
denominator (elements, valid mask entries, weight sum) scaled by its share, so the shares'
losses averaged with their row weights are the whole batch's loss -- for every reduction,
with masks whose valid counts differ between the shares and with sample weights. The
second process is simulated: its denominators come from a first, recording pass."""

import numpy as np
import pytest

from lamina import losses
from lamina.backends import replica
from lamina.backends.autodiff import Tensor
from lamina.highlevel.losses.reduction import replica_divisor

ROWS, SPLIT = 7, 3       # shares [0, 3) and [3, 7): uneven


def _data():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, size=(ROWS, 5))
    probabilities = rng.dirichlet(np.ones(3), size=(ROWS, 5))
    mask = np.arange(5) < np.array([1, 1, 2, 5, 5, 4, 5])[:, None]   # share 0: padded
    return y, probabilities, mask, rng.uniform(0.5, 1.5, size=ROWS)


def _loss(reduction, rows, weighted, masked):
    y, probabilities, mask, weights = (part[rows] for part in _data())
    y_pred = Tensor(probabilities)
    if masked:
        y_pred._keras_mask = Tensor(mask)
    loss = losses.SparseCategoricalCrossentropy(reduction=reduction)
    return float(loss(y, y_pred, weights if weighted else None).numpy())


def _share_losses(reduction, weighted, masked):
    shares = [slice(0, SPLIT), slice(SPLIT, ROWS)]
    counts = [[], []]
    results = []
    for summing in (False, True):       # first pass: each share's own denominators
        results = []
        for rank, rows in enumerate(shares):
            calls = iter(range(len(counts[rank]) if summing else 10 ** 6))

            def total(array, rank=rank, calls=calls):
                if not summing:
                    counts[rank].append(float(array[0]))
                    return array
                call = next(calls)
                return array * 0 + counts[0][call] + counts[1][call]

            replica.set_cross_replica_sum(total)
            replica.set_share((ROWS, rows.start, rows.stop))
            try:
                results.append(_loss(reduction, rows, weighted, masked))
            finally:
                replica.set_share(None)
                replica.set_cross_replica_sum(None)
    return results


@pytest.mark.parametrize("reduction", ["sum_over_batch_size", "mean", "sum",
                                       "mean_with_sample_weight"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("masked", [False, True])
def test_shares_weighted_by_their_rows_give_the_global_loss(reduction, weighted, masked):
    single = _loss(reduction, slice(0, ROWS), weighted, masked)
    first, second = _share_losses(reduction, weighted, masked)
    combined = (SPLIT * first + (ROWS - SPLIT) * second) / ROWS
    np.testing.assert_allclose(combined, single, rtol=1e-13)
    if masked or reduction in ("sum", "mean_with_sample_weight") and weighted:
        # each share's loss with its own denominator, row-weighted: not the global loss
        local = [_loss(reduction, rows, weighted, masked)
                 for rows in (slice(0, SPLIT), slice(SPLIT, ROWS))]
        assert abs((SPLIT * local[0] + (ROWS - SPLIT) * local[1]) / ROWS - single) > 1e-3


def test_outside_a_step_the_divisor_is_local():
    assert replica_divisor(5.0) is None

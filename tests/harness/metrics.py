"""Feeding a metric several batches, the way ``fit`` does, for the metric tests."""

import numpy as np


def feed(metric, *arrays, batches=3, sample_weight=None):
    """Update ``metric`` with ``arrays`` split into ``batches`` chunks; return result()."""
    parts = [np.array_split(a, batches) for a in arrays]
    weights = [None] * batches if sample_weight is None else np.array_split(sample_weight,
                                                                            batches)
    for chunk in zip(*parts, weights):
        metric.update_state(*chunk[:-1], sample_weight=chunk[-1])
    return metric.result()

"""Averaging gradients over processes: one flat buffer, summed in buckets.

Each process packs ``weight * gradient`` of every variable, last layer first, into one
preallocated flat buffer whose final element is ``weight`` itself (its loss' denominator:
its rows of the global batch). Summing the buffer over the processes gives
``sum_r w_r g_r`` and ``sum_r w_r`` in one collective, so the average
``sum_r w_r g_r / sum_r w_r`` is the single-process gradient of the global batch even
when the shares are uneven (a last, short batch) or a process has no rows at all.

A buffer larger than ``bucket_bytes`` is summed in several buckets: each bucket's
non-blocking sum starts as soon as it is packed, so packing the next bucket overlaps the
communication of the previous one.
"""

import numpy as np

from ...backends import state
from ...backends.autodiff import Tensor

DEFAULT_BUCKET_BYTES = 16 * 2 ** 20


class _Layout:
    """The flat buffer, each gradient's span in it and the bucket bounds, for one list of
    gradient shapes and dtypes."""

    def __init__(self, arrays, bucket_bytes):
        xp = state.backend().xp
        present = [i for i, a in enumerate(arrays) if a is not None]
        self.dtype = np.result_type(*[arrays[i].dtype for i in present])
        self.order = present[::-1]             # last layer first: its gradient is ready first
        self.spans = {}
        offset = 0
        for index in self.order:
            size = int(arrays[index].size)
            self.spans[index] = (offset, offset + size)
            offset += size
        self.buffer = xp.empty(offset + 1, dtype=self.dtype)
        per_bucket = max(1, int(bucket_bytes) // self.dtype.itemsize)
        self.buckets = [(start, min(start + per_bucket, offset + 1))
                        for start in range(0, offset + 1, per_bucket)]
        self.shapes = [None if a is None else tuple(a.shape) for a in arrays]


class GradientAverager:
    """Weighted average of gradients over the processes of ``communicator``.

    Args:
        communicator: the job's :class:`Communicator`.
        bucket_bytes: the largest bucket summed by one collective.
    """

    def __init__(self, communicator, bucket_bytes=DEFAULT_BUCKET_BYTES):
        if not int(bucket_bytes) > 0:
            raise ValueError(f"bucket_bytes must be a positive integer, got {bucket_bytes!r}")
        self.communicator = communicator
        self.bucket_bytes = int(bucket_bytes)
        self._layouts = {}

    def layout(self, arrays):
        """The cached :class:`_Layout` of these gradient arrays (None entries skipped)."""
        key = tuple(None if a is None else (a.shape, a.dtype.str) for a in arrays)
        layout = self._layouts.get(key)
        if layout is None:
            layout = self._layouts[key] = _Layout(arrays, self.bucket_bytes)
        return layout

    def average(self, gradients, weight):
        """``sum_r weight_r * g_r / sum_r weight_r`` of each gradient (Tensors or engine
        arrays; None stays None), as engine arrays that view the flat buffer (valid until
        the next call)."""
        arrays = [g.data if isinstance(g, Tensor) else g for g in gradients]
        if all(a is None for a in arrays):
            return list(gradients)
        layout = self.layout(arrays)
        xp = state.backend().xp
        buffer = layout.buffer
        buffer[-1] = weight
        requests, bucket = [], 0
        buckets = layout.buckets
        for index in layout.order:
            start, stop = layout.spans[index]
            xp.multiply(arrays[index].reshape(-1), weight, out=buffer[start:stop])
            while bucket < len(buckets) - 1 and buckets[bucket][1] <= stop:
                requests.append(self._start(buffer, buckets[bucket], len(buckets)))
                bucket += 1
        while bucket < len(buckets):
            requests.append(self._start(buffer, buckets[bucket], len(buckets)))
            bucket += 1
        for request in requests:
            if request is not None:
                request.wait()
        total = float(buffer[-1])
        if not total > 0:
            raise ValueError(f"the processes' gradient weights sum to {total}: every "
                             "process had an empty share of the batch")
        buffer *= 1.0 / total
        result = [None] * len(arrays)
        for index in layout.order:
            start, stop = layout.spans[index]
            result[index] = buffer[start:stop].reshape(layout.shapes[index])
        return result

    def _start(self, buffer, bounds, count):
        view = buffer[bounds[0]:bounds[1]]
        if count == 1:                       # one bucket: the blocking sum is cheapest
            self.communicator.allreduce(view)
            return None
        return self.communicator.allreduce_start(view)

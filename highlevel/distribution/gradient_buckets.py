"""Averaging gradients over processes: one flat buffer, summed in buckets.

Each process packs ``weight * gradient`` of every variable, last layer first, into one
preallocated flat buffer whose final element is ``weight`` itself (its loss' denominator:
its rows of the global batch). Summing the buffer over the processes gives
``sum_r w_r g_r`` and ``sum_r w_r`` in one collective, so the average
``sum_r w_r g_r / sum_r w_r`` is the single-process gradient of the global batch even
when the shares are uneven (a last, short batch) or a process has no rows at all.

A buffer larger than ``bucket_bytes`` is summed in several buckets: each bucket's
non-blocking sum starts as soon as it is packed, so packing the next bucket overlaps the
communication of the previous one. With :meth:`GradientAverager.begin` the buckets are
packed during the backward pass instead (``grad(..., on_gradient=...)`` reports each
variable's gradient once it is final), so communication overlaps the backward pass.
Buckets always start in the same order (bucket 0 first) on every process, as MPI needs.
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
        # the buckets each span overlaps (none for an empty variable)
        self.bucket_of = {index: range(start // per_bucket, (stop - 1) // per_bucket + 1)
                          for index, (start, stop) in self.spans.items()}


class _InFlight:
    """One overlapped average: which spans are packed, which buckets still wait for a
    span, and the requests of the buckets started (in bucket order)."""

    def __init__(self, averager, layout, weight):
        self.averager, self.layout, self.weight = averager, layout, weight
        layout.buffer[-1] = weight
        self.waiting = [0] * len(layout.buckets)
        for buckets in layout.bucket_of.values():
            for bucket in buckets:
                self.waiting[bucket] += 1
        self.packed = set()
        self.requests = []
        self.tested = 0          # requests[:tested] are complete

    def pack(self, index, gradient):
        """Pack ``weight * gradient`` of variable ``index`` and start every bucket that
        is now complete and next in line."""
        if index not in self.packed and index in self.layout.spans:
            self._pack(index, gradient)
            self._start_ready()
            self._progress()

    def _progress(self):
        # MPI moves a non-blocking sum on only inside MPI calls: test the oldest unfinished
        # one while the backward pass goes on
        while self.tested < len(self.requests):
            request = self.requests[self.tested]
            if request is not None and not request.test():
                return
            self.tested += 1

    def _pack(self, index, gradient):
        self.packed.add(index)
        start, stop = self.layout.spans[index]
        xp = state.backend().xp
        xp.multiply(xp.reshape(gradient, (-1,)), self.weight,
                    out=self.layout.buffer[start:stop])
        for bucket in self.layout.bucket_of[index]:
            self.waiting[bucket] -= 1

    def _start_ready(self):
        buckets = self.layout.buckets
        while len(self.requests) < len(buckets) and not self.waiting[len(self.requests)]:
            self.requests.append(self.averager.start(self.layout.buffer,
                                                     buckets[len(self.requests)],
                                                     len(buckets)))

    def matches(self, arrays):
        """True when ``arrays`` are gradients of the variables this average began with."""
        return len(arrays) == len(self.layout.shapes) and all(
            a is not None and tuple(a.shape) == shape
            for a, shape in zip(arrays, self.layout.shapes))

    def discard(self):
        """Abandon the average: wait for the buckets started (every process started the
        same ones), start no more."""
        for request in self.requests:
            if request is not None:
                request.wait()

    def finish(self, arrays):
        """Pack what the backward pass did not report (from ``arrays``), wait for every
        bucket, and return the averaged gradients."""
        for index in self.layout.order:
            self.pack(index, arrays[index])
        self._start_ready()
        return self.averager.complete(self.layout, self.requests)


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

    def begin(self, variables, weight):
        """Start an average of the gradients of ``variables`` packed as they become final:
        returns the in-flight average, whose ``pack(index, gradient)`` is ``grad``'s
        ``on_gradient`` and whose ``finish(gradients)`` completes it like :meth:`average`.
        None when the gradients fit one bucket: its sum could start only once the
        backward pass is over."""
        layout = self.layout([v.data for v in variables])
        return _InFlight(self, layout, weight) if len(layout.buckets) > 1 else None

    def average(self, gradients, weight):
        """``sum_r weight_r * g_r / sum_r weight_r`` of each gradient (Tensors or engine
        arrays; None stays None), as engine arrays that view the flat buffer (valid until
        the next call)."""
        arrays = [g.data if isinstance(g, Tensor) else g for g in gradients]
        if all(a is None for a in arrays):
            return list(gradients)
        return _InFlight(self, self.layout(arrays), weight).finish(arrays)

    def complete(self, layout, requests):
        """Wait for ``requests`` and divide the summed buffer by its summed weight; the
        gradients as views of the buffer (None where ``layout`` has no span)."""
        for request in requests:
            if request is not None:
                request.wait()
        buffer = layout.buffer
        total = float(buffer[-1])
        if not total > 0:
            raise ValueError(f"the processes' gradient weights sum to {total}: every "
                             "process had an empty share of the batch")
        buffer *= 1.0 / total
        result = [None] * len(layout.shapes)
        for index in layout.order:
            start, stop = layout.spans[index]
            result[index] = buffer[start:stop].reshape(layout.shapes[index])
        return result

    def start(self, buffer, bounds, count):
        """Start summing ``buffer[bounds[0]:bounds[1]]`` over the processes (blocking when
        it is the only bucket); its request, or None when done."""
        view = buffer[bounds[0]:bounds[1]]
        if count == 1:                       # one bucket: the blocking sum is cheapest
            self.communicator.allreduce(view)
            return None
        return self.communicator.allreduce_start(view)

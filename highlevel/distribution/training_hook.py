"""What the training loop asks of a data-parallel distribution, in one object.

``fit``/``evaluate``/``predict`` call :func:`current` once; it is None for a job of one
process (nothing changes then). Otherwise the loop calls the hook at a few points:

* :meth:`DataParallelHook.begin_fit`: seed, weights, optimizer state and a restored
  epoch broadcast from rank 0;
* :meth:`DataParallelHook.local_batches`: this process' contiguous rows of every global
  batch, announced to the layers (:mod:`lamina.backends.replica`) while its step runs;
* :meth:`DataParallelHook.overlap`: a ``grad`` callback that starts summing each bucket
  of gradients as soon as the backward pass has finished it;
* :meth:`DataParallelHook.reduce_gradients`: the weighted average over processes, which
  every ``Optimizer.apply`` asks for first (through :mod:`lamina.backends.replica`), so a
  custom ``train_step`` averages too;
* :meth:`DataParallelHook.metrics_result`: the metrics' results from their states summed
  over processes, so every process logs (and its callbacks decide on) the same numbers;
* :meth:`DataParallelHook.sync_decisions`: rank 0's ``stop_training`` and learning rate
  after each epoch's callbacks;
* :meth:`DataParallelHook.gather`: ``predict``'s outputs of every process, in order.
"""

import numpy as np

from ...backends import replica, state
from ...backends.autodiff import Tensor
from .gradient_buckets import GradientAverager

_active = {"hook": None}


def current():
    """The hook of the data-parallel distribution in use, or None (one process, or no
    distribution set)."""
    return _active["hook"]


def set_current(hook):
    """Make ``hook`` (or None) the one :func:`current` returns, and the optimizers'
    gradient reducer."""
    _active["hook"] = hook
    replica.set_gradient_reducer(None if hook is None else hook.reduce_gradients)


def batch_rows(structure):
    """The row count of a batch structure (its first array's)."""
    if isinstance(structure, dict):
        return batch_rows(next(iter(structure.values())))
    if isinstance(structure, (list, tuple)):
        return batch_rows(structure[0])
    return structure.shape[0]


def take_rows(structure, start, stop):
    """Rows ``[start, stop)`` of every array of a batch structure (None stays None)."""
    if structure is None:
        return None
    if isinstance(structure, dict):
        return {key: take_rows(value, start, stop) for key, value in structure.items()}
    if isinstance(structure, (list, tuple)):
        return type(structure)(take_rows(value, start, stop) for value in structure)
    return structure[start:stop]


def _contiguous_in_place(communicator, array, root=0):
    if array.flags.c_contiguous:
        communicator.broadcast(array, root)
        return
    staged = array.copy()
    communicator.broadcast(staged, root)
    array[...] = staged


class DataParallelHook:
    """The training loop's side of :class:`~lamina.distribution.DataParallel`.

    Args:
        communicator: the job's :class:`Communicator` (``size > 1``).
        auto_shard_dataset: True: every process sees the same global batches and takes
            its rows of each; False: each process' data is already its own shard.
        bucket_bytes: the largest gradient bucket summed by one collective.
        overlap: start each bucket's sum during the backward pass (:meth:`overlap`).
    """

    def __init__(self, communicator, auto_shard_dataset=True, bucket_bytes=None,
                 overlap=True):
        self.communicator = communicator
        self.auto_shard_dataset = bool(auto_shard_dataset)
        self.averager = GradientAverager(communicator, *(() if bucket_bytes is None
                                                          else (bucket_bytes,)))
        self._local_rows = None
        self._pending_model = None
        self._in_flight = None
        self.overlaps = bool(overlap)

    # -------------------------------------------------------------- sharding
    def share(self, rows):
        """``(start, stop)``: this process' contiguous share of a global batch of
        ``rows`` rows (shares differ by at most one row; rank 0's comes first)."""
        rank, size = self.communicator.rank, self.communicator.size
        return rank * rows // size, (rank + 1) * rows // size

    def local_batches(self, batches):
        """Yield this process' part of each ``(x, y, sample_weight)`` global batch of
        ``batches``, with the share announced to the layers while the consumer runs the
        step."""
        try:
            for x, y, weights in batches:
                rows = batch_rows(x)
                if self.auto_shard_dataset:
                    start, stop = self.share(rows)
                    x, y, weights = (take_rows(x, start, stop), take_rows(y, start, stop),
                                     take_rows(weights, start, stop))
                    replica.set_share((rows, start, stop))
                    self._local_rows = stop - start
                else:
                    self._local_rows = rows
                yield x, y, weights
                replica.set_share(None)
        finally:
            replica.set_share(None)
            self._local_rows = None
            close = getattr(batches, "close", None)
            if close is not None:    # a PyDataset's workers stop with its batches
                close()

    # -------------------------------------------------------------- fit
    def begin_fit(self, model, initial_epoch):
        """Broadcast rank 0's seed; its weights and optimizer state now (a built model)
        or at the first gradient step (a model built by its first batch). Returns rank
        0's ``initial_epoch`` (a BackupAndRestore runs on rank 0 only)."""
        communicator = self.communicator
        seed = communicator.broadcast_object(state.seed_or_random())
        if seed != state.seed_or_random():
            state.set_seed(seed)
        self._pending_model = model
        if model.built:
            self._broadcast_state(model)
        return communicator.broadcast_object(initial_epoch)

    def _broadcast_state(self, model):
        self._pending_model = None
        communicator = self.communicator
        for variable in model.weights:
            _contiguous_in_place(communicator, variable.data)
        optimizer = model.optimizer
        if communicator.broadcast_object(optimizer.built) and not optimizer.built:
            optimizer.build(model.trainable_weights)
        if optimizer.built:
            for variable in optimizer.variables:
                _contiguous_in_place(communicator, variable.data)
            optimizer.set_iterations(int(np.asarray(
                state.backend().to_numpy(optimizer.iterations_variable.data))))

    def _weight(self):
        if self._pending_model is not None:
            self._broadcast_state(self._pending_model)
        return 1.0 if self._local_rows is None else float(self._local_rows)

    def overlap(self, variables):
        """``grad``'s ``on_gradient`` for this step's gradients of ``variables``: each
        bucket's sum starts as soon as the backward pass has finished its gradients;
        :meth:`reduce_gradients` completes it. None when ``overlap`` is off, or the
        gradients fit one bucket (or there are none)."""
        if not self.overlaps or not variables:
            return None
        if self._in_flight is not None:    # begun but never applied
            self._in_flight.discard()
        self._in_flight = self.averager.begin(variables, self._weight())
        return None if self._in_flight is None else self._in_flight.pack

    def reduce_gradients(self, gradients):
        """The gradients averaged over the processes, each weighted by its rows of the
        global batch (1 outside :meth:`local_batches`): the sum :meth:`overlap` started,
        or one packed now."""
        arrays = [g.data if isinstance(g, Tensor) else g for g in gradients]
        in_flight, self._in_flight = self._in_flight, None
        if in_flight is not None and in_flight.matches(arrays):
            return in_flight.finish(arrays)
        if in_flight is not None:
            in_flight.discard()
        return self.averager.average(arrays, self._weight())

    def sync_decisions(self, model):
        """Rank 0's ``stop_training`` and learning rate on every process, so callbacks'
        decisions keep the processes in lockstep."""
        optimizer = model.optimizer
        rate = optimizer.learning_rate
        stop, chief_rate = self.communicator.broadcast_object((bool(model.stop_training),
                                                               rate))
        model.stop_training = stop
        if chief_rate != rate:
            optimizer.learning_rate = chief_rate

    # -------------------------------------------------------------- results
    def metrics_result(self, metrics):
        """``{name: result}`` of ``metrics`` computed from their states summed over the
        processes (``"mean"`` variables averaged, ``"only_first_replica"`` ones rank 0's,
        ``"none"`` ones local); the local states are left as they were."""
        states = []
        for metric in metrics:
            for array in metric.variables:
                aggregation = getattr(array, "aggregation", "sum")
                if aggregation != "none":
                    data = array.data if hasattr(array, "aggregation") else array
                    states.append((data, aggregation))
        if not states:
            return {m.name: float(m.result()) for m in metrics}
        xp = state.backend().xp
        rank, size = self.communicator.rank, self.communicator.size
        saved = [data.copy() for data, _ in states]
        flat = xp.concatenate([xp.asarray(data, dtype="float64").reshape(-1)
                               * (0.0 if aggregation == "only_first_replica" and rank else 1.0)
                               for data, aggregation in states])
        self.communicator.allreduce(flat)
        offset = 0
        for data, aggregation in states:
            part = flat[offset:offset + data.size].reshape(data.shape)
            offset += data.size
            data[...] = (part / size if aggregation == "mean" else part).astype(data.dtype)
        try:
            return {m.name: float(m.result()) for m in metrics}
        finally:
            for (data, _), original in zip(states, saved):
                data[...] = original

    def gather(self, collected):
        """``predict``'s per-output lists of per-batch local arrays -> the same lists of
        every process' rows, batch by batch in rank order (the single-process order)."""
        everyone = self.communicator.allgather_object(collected)
        if everyone[0] is None:
            return None
        return [[part for batch in range(len(outputs))
                 for part in (ranks[position][batch] for ranks in everyone)]
                for position, outputs in enumerate(everyone[0])]


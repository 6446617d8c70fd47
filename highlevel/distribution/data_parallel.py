"""``DataParallel`` (one model replica per process, the global batch sharded over them) and
the distribution in use (``set_distribution`` / ``distribution``), Keras 3's shape."""

from . import runtime, thread_replicas, training_hook
from .gradient_buckets import DEFAULT_BUCKET_BYTES


class DataParallel:
    """Data-parallel training over the processes of the job (``mpirun -np N``), or, in a
    job of one process, over the engine's threads.

    Every process holds the whole model. ``fit(batch_size=B)``'s ``B`` is the global
    batch: each process takes its contiguous share of every global batch of the shared,
    seeded shuffle; gradients are averaged with one bucketed allreduce per step (with
    several buckets, each one's sum starts during the backward pass), weighted by each
    share, and each share's loss divides by the global batch's denominator (its
    elements, valid mask entries or weight sum), so the update -- and the logged loss --
    is the single-process one for the same global batch and seed, on every process,
    for every loss reduction, with sample weights and masks (an ``add_loss`` term that
    depends on the batch is exact only when it is a mean over rows). ``optimizer.apply``
    averages, so a custom ``train_step`` written with ``lamina.grad`` does too. Weights,
    optimizer state and the seed start from rank 0's; random layers draw the global
    batch's noise and keep their rows. Loss and metrics are reduced over processes, ``evaluate``/``predict``
    shard and gather, and callbacks with side effects (progress bar, CSVLogger,
    ModelCheckpoint, BackupAndRestore, TensorBoard) run on rank 0 only.

    In a job of one process, each training batch is split over the engine's threads
    instead (the NumPy engine: one share per BLAS thread), with the same exactness: see
    :mod:`lamina.highlevel.distribution.thread_replicas` (and when a step runs on one
    thread after all: a model with non-trainable weights, such as BatchNormalization's,
    or the CuPy engine). ``evaluate`` and ``predict`` run as without a distribution.

    Args:
        device_mesh: not supported (processes are the devices); must be None.
        devices: optional, :func:`list_devices`' list: one device per process.
        auto_shard_dataset: True (default): every process is given the same data and
            takes its rows of each batch. False: each process' ``x`` is already its own
            shard (then random layers and synchronized BatchNormalization act per process).
        bucket_bytes: the largest gradient bucket one allreduce sums (default 16 MiB).
        overlap: True (default): with several buckets, each bucket's sum starts during
            the backward pass as soon as its gradients are final; False: all sums start
            after it.

    Example::

        lamina.distribution.initialize()
        lamina.distribution.set_distribution(lamina.distribution.DataParallel())
        model.fit(x, y, batch_size=256, epochs=5)   # mpirun -np 4 python train.py
    """

    def __init__(self, device_mesh=None, devices=None, auto_shard_dataset=True,
                 bucket_bytes=DEFAULT_BUCKET_BYTES, overlap=True):
        if device_mesh is not None:
            raise ValueError("DataParallel: device_mesh is not supported (each process is "
                             "one device); pass devices=list_devices() or nothing. "
                             f"Received: device_mesh={device_mesh!r}")
        runtime.initialize()
        self.communicator = runtime.get_communicator()
        if devices is not None and len(devices) != self.communicator.size:
            raise ValueError(f"DataParallel: devices must hold one device per process "
                             f"({self.communicator.size}); received {len(devices)}: "
                             f"{list(devices)}")
        if not (isinstance(bucket_bytes, int) and bucket_bytes > 0):
            raise ValueError(f"DataParallel: bucket_bytes must be a positive integer. "
                             f"Received: bucket_bytes={bucket_bytes!r}")
        self.devices = list(devices) if devices is not None else runtime.list_devices()
        self.auto_shard_dataset = bool(auto_shard_dataset)
        self.bucket_bytes = bucket_bytes
        self.overlap = bool(overlap)
        self.hook = None if self.communicator.size == 1 else training_hook.DataParallelHook(
            self.communicator, self.auto_shard_dataset, bucket_bytes, self.overlap)

    @property
    def num_processes(self):
        """The number of processes (model replicas)."""
        return self.communicator.size

    def __repr__(self):
        return (f"<DataParallel processes={self.communicator.size} "
                f"communicator={self.communicator.name}>")


_current = {"distribution": None}


def set_distribution(value):
    """Use ``value`` (a :class:`DataParallel`, or None for plain single-process training)
    for every following ``fit``/``evaluate``/``predict``."""
    if value is not None and not isinstance(value, DataParallel):
        raise ValueError(f"set_distribution expects a DataParallel or None. Received: "
                         f"{value!r} of type {type(value).__name__}")
    _current["distribution"] = value
    training_hook.set_current(None if value is None else value.hook)
    thread_replicas.set_enabled(value is not None and value.hook is None)


def distribution():
    """The distribution set with :func:`set_distribution` (None when none is)."""
    return _current["distribution"]

"""``PyDataset`` (Keras 3's ``keras.utils.PyDataset``, alias ``Sequence``): batches written in
Python, and ``ordered_batches``, which has a dataset's workers (threads or processes) prepare
its batches ahead of the training loop, in order, through a bounded queue."""

import collections
import concurrent.futures
import multiprocessing
import warnings

_DEFAULTS = {"_workers": 1, "_use_multiprocessing": False, "_max_queue_size": 10}


class PyDataset:
    """Base class of a dataset written in Python, as ``keras.utils.PyDataset``.

    A subclass implements ``__len__`` (the number of batches) and ``__getitem__(index)``
    (batch ``index``: ``x``, ``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)``), optionally
    ``on_epoch_begin``/``on_epoch_end``, and calls ``super().__init__(**kwargs)``.
    ``fit``/``evaluate``/``predict`` then load its batches with ``workers`` threads
    (``use_multiprocessing=False``) or forked processes (``True``; the dataset is copied into
    each process, and batches travel back pickled) while the model trains, at most
    ``max_queue_size`` batches ahead, in order. Iterating over it by hand uses no workers.

    Args:
        workers: the number of threads or processes that prepare batches (1: batches are
            loaded in the training thread, as Keras does, unless ``use_multiprocessing``).
        use_multiprocessing: workers are processes instead of threads (CPU-bound
            ``__getitem__``; the dataset must survive a fork or pickling).
        max_queue_size: the most batches requested ahead of the one being trained on.

    Example:
        >>> class Squares(PyDataset):
        ...     def __init__(self, **kwargs):
        ...         super().__init__(**kwargs)
        ...     def __len__(self):
        ...         return 10
        ...     def __getitem__(self, index):
        ...         x = np.full((8, 1), index, "float32")
        ...         return x, x ** 2
        >>> model.fit(Squares(workers=4), epochs=2)
    """

    def __init__(self, workers=1, use_multiprocessing=False, max_queue_size=10):
        for name, value in (("workers", workers), ("max_queue_size", max_queue_size)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"PyDataset needs {name} a positive int, got {value!r}")
        if not isinstance(use_multiprocessing, bool):
            raise ValueError(f"PyDataset needs use_multiprocessing True or False, got "
                             f"{use_multiprocessing!r}")
        self._workers = workers
        self._use_multiprocessing = use_multiprocessing
        self._max_queue_size = max_queue_size

    def _setting(self, attribute):
        if attribute not in self.__dict__:
            warnings.warn("Your `PyDataset` class should call `super().__init__(**kwargs)` "
                          "in its constructor. `**kwargs` can include `workers`, "
                          "`use_multiprocessing`, `max_queue_size`.", stacklevel=3)
            for name, default in _DEFAULTS.items():
                self.__dict__.setdefault(name, default)
        return self.__dict__[attribute]

    @property
    def workers(self):
        """The number of workers that prepare batches."""
        return self._setting("_workers")

    @workers.setter
    def workers(self, value):
        self._workers = value

    @property
    def use_multiprocessing(self):
        """Whether the workers are processes (else threads)."""
        return self._setting("_use_multiprocessing")

    @use_multiprocessing.setter
    def use_multiprocessing(self, value):
        self._use_multiprocessing = value

    @property
    def max_queue_size(self):
        """The most batches prepared ahead of the training loop."""
        return self._setting("_max_queue_size")

    @max_queue_size.setter
    def max_queue_size(self, value):
        self._max_queue_size = value

    def __getitem__(self, index):
        """Batch ``index`` (subclasses implement it)."""
        raise NotImplementedError(f"{type(self).__name__} must implement __getitem__")

    @property
    def num_batches(self):
        """The number of batches (``len(self)``)."""
        if hasattr(self, "__len__"):
            return len(self)
        raise NotImplementedError(f"{type(self).__name__} must implement __len__ (the "
                                  f"number of batches)")

    def on_epoch_begin(self):
        """Called before each pass over the batches (``fit`` epoch, ``evaluate``,
        ``predict``)."""

    def on_epoch_end(self):
        """Called after each pass over the batches (e.g. to reshuffle)."""


Sequence = PyDataset

_PROCESS_DATASET = []   # the dataset of this worker process (set by _install)


def _install(dataset):
    _PROCESS_DATASET[:] = [dataset]


def _process_item(index):
    return _PROCESS_DATASET[0][index]


def _executor(dataset, workers, use_multiprocessing):
    if not use_multiprocessing:
        return concurrent.futures.ThreadPoolExecutor(
            workers, thread_name_prefix="lamina_pydataset_worker"), dataset.__getitem__
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    return concurrent.futures.ProcessPoolExecutor(
        workers, mp_context=context, initializer=_install, initargs=(dataset,)), _process_item


def ordered_batches(dataset, count):
    """Yield ``dataset[0]``, ..., ``dataset[count - 1]`` in order.

    A :class:`PyDataset` with ``workers > 1`` or ``use_multiprocessing`` has them prepared
    by a pool of its workers, at most ``max_queue_size`` batches ahead; anything else is
    indexed in the calling thread. An exception in a worker is raised here, with its type,
    message and traceback (a worker process' traceback is chained as the cause). The pool
    is shut down and its threads/processes joined when the last batch is out, when an
    error is raised, and when the consumer closes (or drops) this generator early.
    """
    workers = getattr(dataset, "workers", 1) if isinstance(dataset, PyDataset) else 1
    processes = isinstance(dataset, PyDataset) and dataset.use_multiprocessing
    if workers <= 1 and not processes:
        for index in range(count):
            yield dataset[index]
        return
    executor, load = _executor(dataset, workers, processes)
    pending = collections.deque()
    try:
        ahead = dataset.max_queue_size
        requested = 0
        while requested < count or pending:
            while requested < count and len(pending) < ahead:
                pending.append(executor.submit(load, requested))
                requested += 1
            yield pending.popleft().result()
    finally:
        for future in pending:
            future.cancel()
        executor.shutdown(wait=True, cancel_futures=True)

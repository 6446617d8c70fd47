"""Running a batch-sized kernel as row blocks on several threads (the NumPy engine's way
to use every core for the work BLAS does not do).

Convolution and pooling spend much of their time outside BLAS: im2col copies, the bias
and activation passes, the ReLU mask, pooling. NumPy runs those on one core, but it
releases the GIL inside them, so rows of a batch split into blocks run side by side on
Python threads. While blocks run, BLAS is limited to one thread per block, so the cores
are never oversubscribed; as many blocks run as BLAS may use threads (what the machine
offers, or what the user set with ``OMP_NUM_THREADS``/threadpoolctl).
"""

import ctypes
import functools
import itertools
import os
import threading

from . import host_tuning

#: The fewest output elements a block gets; below that, threads cost more than they save.
#: A hand-off to a block thread costs ~50-150 us on a 2-core VM (the thread's wake-up and
#: the GIL passing back and forth), about what a pass over 2**17 float32 values takes on
#: one core. At 2**18, W5's LayerNorms and 128-wide Dense epilogues ((2048, 128) arrays)
#: run on the calling thread: W5's step 0.95-0.96x and W2's 0.95x the time at 2**17, W3 the
#: same (medians of paired in-process epochs, AVX-512 and AVX2 OpenBLAS kernels alike).
MIN_BLOCK_ELEMENTS = 1 << 18

_POOL = {"workers": []}
#: Held by the one caller whose blocks are on the worker threads; other callers (and
#: blocks that split again) run their blocks one after another on their own thread.
_POOL_LOCK = threading.Lock()
#: While a caller's blocks are on the worker threads: ``(that caller's thread id, BLAS'
#: thread count before it limited BLAS to one thread)``; None otherwise. BLAS' thread
#: count is process-wide, so other threads read the count from here (see thread_count).
_WINDOW = [None]
_PREFIX = "lamina-block"
#: The symbol prefixes and suffixes of OpenBLAS builds (NumPy's and SciPy's wheels).
_AFFIXES = tuple(itertools.product(("", "scipy_"), ("", "64_", "_64")))


def _forget_workers():
    """In a forked child: no thread survives a fork, and the pool's lock may have been
    held by one that did not come along."""
    global _POOL_LOCK
    _POOL_LOCK = threading.Lock()
    _POOL["workers"] = []
    _WINDOW[0] = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_workers)


def _blas():
    """The BLAS controller, or None when blocks must not run on threads: an unknown BLAS,
    or one whose idle threads would spin against the blocks (see ``host_tuning``)."""
    return host_tuning.blas_controller() if host_tuning.blas_spin_is_short() else None


def available():
    """Whether blocks can run on several threads in this process."""
    return _blas() is not None


def blocks(batch, elements):
    """Row slices splitting ``batch`` rows whose result has ``elements`` elements: one
    per BLAS thread, but none smaller than :data:`MIN_BLOCK_ELEMENTS` (one slice when
    threads are not :func:`available`)."""
    count = max(1, min(thread_count(), batch, elements // MIN_BLOCK_ELEMENTS))
    bounds = [batch * k // count for k in range(count + 1)]
    return [slice(bounds[k], bounds[k + 1]) for k in range(count)]


def thread_count():
    """How many blocks may run at once: BLAS' thread count (1 when not :func:`available`).

    Inside a block (and on the thread whose blocks are running) that is 1. Any other
    thread gets the count BLAS had before those blocks limited it, so how an op splits
    its rows -- and with that its float rounding, e.g. of a gradient summed over the
    blocks -- does not depend on what other threads are running at the time (a ``fit``
    while other threads ``predict`` stays bit-identical to a serial one)."""
    window = _WINDOW[0]
    if window is not None and window[0] != threading.get_ident() and not _on_block_thread():
        return window[1]
    counts = _blas_thread_counts()
    return max([get() for get, _ in counts] or [1])


@functools.lru_cache(maxsize=None)
def _blas_thread_counts():
    """``(get, set)`` of each BLAS library's thread count as ctypes functions, found once
    (threadpoolctl's own calls look the symbols up again each time: ~10 us a block run
    here); empty when blocks must not run on threads."""
    controller = _blas()     # the libraries and the host tuning are fixed for the process
    return () if controller is None else \
        tuple(_count_functions(lib) for lib in controller.lib_controllers)


def _count_functions(lib):
    """OpenBLAS' ``openblas_get_num_threads`` / ``openblas_set_num_threads`` of ``lib``
    under the symbol affixes its builds use, or threadpoolctl's accessors."""
    library = ctypes.CDLL(lib.filepath)
    for prefix, suffix in _AFFIXES:
        get = getattr(library, f"{prefix}openblas_get_num_threads{suffix}", None)
        put = getattr(library, f"{prefix}openblas_set_num_threads{suffix}", None)
        if get is not None and put is not None:
            get.argtypes, get.restype = [], ctypes.c_int
            put.argtypes, put.restype = [ctypes.c_int], None
            return get, put
    return (lambda: lib.num_threads), lib.set_num_threads     # pragma: no cover


class _Worker:
    """One block thread, handed one task at a time through a pair of locks (a
    ``ThreadPoolExecutor`` round trip, with its futures and queue, cost ~100 us a call
    here against ~30 us for the locks: too much for kernels of a few hundred us)."""

    def __init__(self, index):
        self._wake, self._done = threading.Lock(), threading.Lock()
        self._wake.acquire()
        self._done.acquire()
        self._task = self._outcome = None
        threading.Thread(target=self._serve, name=f"{_PREFIX}-{index}", daemon=True).start()

    def _serve(self):
        while True:
            self._wake.acquire()
            work, rows = self._task
            self._task = None
            try:
                self._outcome = (True, work(rows))
            except BaseException as raised:   # noqa: B036 - handed to the caller
                self._outcome = (False, raised)
            del work, rows      # the task's arrays must not outlive it on this thread
            self._done.release()

    def start(self, work, rows):
        """Run ``work(rows)`` on this worker's thread."""
        self._task = (work, rows)
        self._wake.release()

    def finish(self):
        """Wait for the task: ``(True, result)`` or ``(False, the error it raised)``."""
        self._done.acquire()
        outcome, self._outcome = self._outcome, None
        return outcome


def _workers(count):
    """``count`` worker threads, added when more are needed; the caller holds
    ``_POOL_LOCK``."""
    workers = _POOL["workers"]
    while len(workers) < count:
        workers.append(_Worker(len(workers)))
    return workers[:count]


def run(work, row_blocks):
    """``[work(rows) for rows in row_blocks]``, the blocks on separate threads (the first
    on this one) with BLAS on one thread each.

    Every block finishes before this returns, also when one raises (the others may be
    writing into arrays the caller owns); then the first error is raised again. While
    another caller's blocks are on the threads, these run one after another here.
    """
    if len(row_blocks) == 1 or not _take_pool():
        return [work(rows) for rows in row_blocks]     # one block, nested, or pool busy
    return _run_on_pool(work, row_blocks)


def run_concurrently(work, count):
    """``[work(0), ..., work(count - 1)]`` all running at the same time, ``work(0)`` on
    this thread, BLAS on one thread each -- or None, having run nothing, when ``count``
    threads cannot run at once now (fewer BLAS threads, the pool busy or this a worker).
    For work that waits for its siblings (a :class:`~lamina.backends.replica.ThreadGroup`),
    which one after another would wait forever. Errors as in :func:`run`."""
    if count < 2 or count > thread_count() or not _take_pool():
        return None
    return _run_on_pool(work, list(range(count)))


def _take_pool():
    """Whether this caller now holds the worker threads (False: nested or busy)."""
    return not _on_block_thread() and _POOL_LOCK.acquire(blocking=False)


def _on_block_thread():
    """Whether this thread is one of the pool's block threads."""
    return threading.current_thread().name.startswith(_PREFIX)


def _run_on_pool(work, items):
    """:func:`run`'s body once the caller holds ``_POOL_LOCK`` (released here)."""
    counts = _blas_thread_counts()
    before = [get() for get, _ in counts]
    _WINDOW[0] = (threading.get_ident(), max(before or [1]))
    try:
        for _, put in counts:           # BLAS on one thread while the blocks run
            put(1)
        workers = _workers(len(items) - 1)
        for worker, item in zip(workers, items[1:]):
            worker.start(work, item)
        results, error = [None] * len(items), None
        try:
            results[0] = work(items[0])
        except BaseException as raised:   # noqa: B036 - raised again once the rest finish
            error = raised
        for k, worker in enumerate(workers, start=1):
            finished, value = worker.finish()
            if finished:
                results[k] = value
            else:
                error = error or value
    finally:
        for (_, put), count in zip(counts, before):
            put(count)
        _WINDOW[0] = None
        _POOL_LOCK.release()
    if error is not None:
        raise error
    return results

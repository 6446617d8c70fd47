"""Running a batch-sized kernel as row blocks on several threads (the NumPy engine's way
to use every core for the work BLAS does not do).

Convolution and pooling spend much of their time outside BLAS: im2col copies, the bias
and activation passes, the ReLU mask, pooling. NumPy runs those on one core, but it
releases the GIL inside them, so rows of a batch split into blocks run side by side on
Python threads. While blocks run, BLAS is limited to one thread per block, so the cores
are never oversubscribed; as many blocks run as BLAS may use threads (what the machine
offers, or what the user set with ``OMP_NUM_THREADS``/threadpoolctl).
"""

import contextlib
import os
import threading
from concurrent.futures import ThreadPoolExecutor

from . import host_tuning

#: The fewest output elements a block gets; below that, threads cost more than they save.
MIN_BLOCK_ELEMENTS = 1 << 17

_POOL = {"pid": None, "executor": None, "workers": 0}
_POOL_LOCK = threading.Lock()
_LIMIT = {"callers": 0}
_LIMIT_LOCK = threading.Lock()
_PREFIX = "lamina-block"


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
    count = max(1, min(_threads(), batch, elements // MIN_BLOCK_ELEMENTS))
    bounds = [batch * k // count for k in range(count + 1)]
    return [slice(bounds[k], bounds[k + 1]) for k in range(count)]


def _threads():
    """How many blocks may run at once: BLAS' thread count (1 when not :func:`available`)."""
    controller = _blas()
    return 1 if controller is None else \
        max(lib.num_threads for lib in controller.lib_controllers)


@contextlib.contextmanager
def _one_blas_thread():
    """BLAS on one thread while any caller's blocks run; the first caller in limits it and
    the last one out restores what it was (callers on several threads may overlap)."""
    controller = _blas()
    if controller is None:
        yield
        return
    with _LIMIT_LOCK:
        if _LIMIT["callers"] == 0:
            _LIMIT["limiter"] = controller.limit(limits=1)
        _LIMIT["callers"] += 1
    try:
        yield
    finally:
        with _LIMIT_LOCK:
            _LIMIT["callers"] -= 1
            if _LIMIT["callers"] == 0:
                _LIMIT.pop("limiter").restore_original_limits()


def _executor(workers):
    """The worker threads, made anew in a forked child (threads do not survive a fork) or
    when more are needed (the old, smaller pool finishes its work and ends)."""
    with _POOL_LOCK:
        pool = _POOL["executor"]
        if _POOL["pid"] != os.getpid() or pool is None or _POOL["workers"] < workers:
            if pool is not None and _POOL["pid"] == os.getpid():
                pool.shutdown(wait=False)
            pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=_PREFIX)
            _POOL.update(pid=os.getpid(), executor=pool, workers=workers)
        return pool


def run(work, row_blocks):
    """``[work(rows) for rows in row_blocks]``, the blocks on separate threads (the first
    on this one) with BLAS on one thread each.

    Every block finishes before this returns, also when one raises (the others may be
    writing into arrays the caller owns); then the first error is raised again.
    """
    if len(row_blocks) == 1 or threading.current_thread().name.startswith(_PREFIX):
        return [work(rows) for rows in row_blocks]     # one block, or nested in a block
    with _one_blas_thread():
        futures = [_executor(len(row_blocks) - 1).submit(work, rows)
                   for rows in row_blocks[1:]]
        results, error = [None] * len(row_blocks), None
        try:
            results[0] = work(row_blocks[0])
        except BaseException as raised:   # noqa: B036 - raised again once the rest finish
            error = raised
        for k, future in enumerate(futures, start=1):
            try:
                results[k] = future.result()
            except BaseException as raised:   # noqa: B036
                error = error or raised
    if error is not None:
        raise error
    return results

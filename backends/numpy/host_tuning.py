"""Two process-wide settings the NumPy engine makes once, when it is first created
(:func:`apply`, from ``NumpyBackend()``: the first time the NumPy engine is selected or used),
and why. ``import lamina`` alone changes nothing; ``LAMINA_HOST_TUNING=0`` in the
environment leaves the process alone also then (and the NumPy engine runs convolution and
pooling on one thread, see :mod:`lamina.backends.numpy.threads`).

The allocator settings can be made at any time (glibc's ``mallopt`` takes the heap's
lock). The BLAS setting cannot: OpenBLAS starts its worker threads when it is loaded (with
NumPy) and reads their spin time only then, so shortening the spin means shutting the
workers down for the next call to start them again, which is only safe while no other
thread is inside a BLAS call. :func:`apply` therefore restarts them only when the calling
thread is the process' only Python thread (as when a script first builds a model); with
other threads running it leaves OpenBLAS alone, and convolution and pooling run on one
thread as with ``LAMINA_HOST_TUNING=0``.

**Freed memory stays in the process** (glibc only). Every training or inference step
allocates and frees the same few-megabyte arrays (activations, gate histories, im2col
columns). glibc hands memory above a (dynamic, at most 32 MB) size threshold back to the
kernel with ``munmap``, and trims more than twice that threshold off the top of its heap;
either way the next step gets fresh pages, which the kernel must fault in and zero.
Measured: W3 (LSTM) took 1.1 million page faults in four epochs (21,000 with the settings
below) and ran 25-30% slower; W1-predict took 191,000 (18,000) and ran 18% slower. So
arrays up to :data:`MMAP_THRESHOLD_BYTES` come from the reusable heap and up to
:data:`TRIM_THRESHOLD_BYTES` of free heap is kept: freed memory is kept for reuse instead of
returned. The size threshold stops where keeping costs more memory than it saves time:
larger arrays (the activations of large images) come and go with ``mmap`` (NumPy asks for
huge pages there, so they fault in 2 MB at a time), because large blocks freed into the
heap leave holes that later requests of other sizes do not fit. Measured on W2's model at
112x112x3, batch 64: a 32 MB threshold held a peak RSS about 45 MB above 16 MB (8 MB saved
9 MB more but would send W2's 11 MB arrays to ``mmap``); the per-step arrays of W1-W5 are
below 12 MB, so their steps reuse the heap as before.

**OpenBLAS' idle threads stop spinning sooner** (OpenBLAS with its own pthreads, as NumPy's
wheels ship it). After each multithreaded call OpenBLAS' worker threads busy-wait for new
work for 2**28 cycles (~0.1 s) before they sleep. The engine runs convolution and pooling
as row blocks on its own threads (with one-thread BLAS inside); a spinning OpenBLAS worker
takes half of a core from them and made those ops twice as slow. The same holds for the
compiled kernels (attention, LayerNorm, the Dense epilogues) that run as row blocks between
the GEMMs of a Transformer step. With ``OPENBLAS_THREAD_TIMEOUT`` at
:data:`BLAS_SPIN_EXPONENT` (2**16 TSC ticks, ~25 us) the workers are still awake for
GEMMs that follow each other directly and asleep during the kernels between GEMMs.
Measured on a 2-core VM (5 interleaved processes each): W5's epoch 8.27 s at 2**16, 8.63 s
at 2**18, 9.38 s at 2**20 (2**12: 8.43-8.64 s); W2's 2.39, 2.42, 2.45 s; W1, W3 and W4
within noise. A value the user set in the environment is kept.
"""

import ctypes
import os
import platform
import threading

MMAP_THRESHOLD_BYTES = 16 * 1024 * 1024
TRIM_THRESHOLD_BYTES = 256 * 1024 * 1024
BLAS_SPIN_EXPONENT = 16
#: The longest spin (as an exponent) under which row blocks still run on threads: a value
#: the user set up to this is kept and counts as short (2**20 cycles did not slow them).
SHORT_SPIN_LIMIT_EXPONENT = 20
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3      # glibc's <malloc.h> parameter numbers
_STATE = {}
_LOCK = threading.Lock()


def enabled():
    """Whether the user lets lamina tune the process (``LAMINA_HOST_TUNING`` is not 0)."""
    return os.environ.get("LAMINA_HOST_TUNING", "1").strip() != "0"


def apply():
    """Make both settings, once per process (later calls change nothing)."""
    if _STATE:
        return
    with _LOCK:
        if not _STATE:
            controller = _blas_controller()
            memory = enabled() and _tune_allocator()
            blas = enabled() and _tune_openblas(controller)
            _STATE.update(controller=controller, memory=memory, blas=blas)


def freed_memory_kept():
    """Whether glibc keeps freed memory in the process (False when switched off or when
    the C library is not glibc)."""
    apply()
    return _STATE["memory"]


def blas_spin_is_short():
    """Whether BLAS' idle threads sleep soon after each call: OpenBLAS with pthreads, its
    spin shortened here or by the user (False when switched off, for another BLAS or
    threading layer, or when the OpenBLAS build lacks the entry points)."""
    apply()
    return _STATE["blas"]


def blas_controller():
    """threadpoolctl's controller of the process' BLAS libraries (None when threadpoolctl
    is missing or finds none)."""
    apply()
    return _STATE["controller"]


def _blas_controller():
    try:
        import threadpoolctl
        controller = threadpoolctl.ThreadpoolController().select(user_api="blas")
    except Exception:                    # pragma: no cover - missing or exotic
        return None
    return controller if controller.lib_controllers else None


def _tune_allocator():
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return False
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):      # pragma: no cover - an unusual glibc layout
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)) and \
        bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES))


def _tune_openblas(blas_controller):
    libraries = [] if blas_controller is None else blas_controller.lib_controllers
    if not libraries or any(lib.internal_api != "openblas" or
                            getattr(lib, "threading_layer", None) != "pthreads"
                            for lib in libraries):
        return False
    chosen = os.environ.get("OPENBLAS_THREAD_TIMEOUT")
    if chosen:
        try:
            return 0 < int(chosen) <= SHORT_SPIN_LIMIT_EXPONENT
        except ValueError:
            return False
    if threading.active_count() > 1:
        return False          # another thread may be inside a BLAS call: no restart
    try:
        handles = [ctypes.CDLL(lib.filepath) for lib in libraries]
        entry_points = [(h.openblas_read_env, h.blas_thread_shutdown_) for h in handles]
    except (OSError, AttributeError):
        return False
    os.environ["OPENBLAS_THREAD_TIMEOUT"] = str(BLAS_SPIN_EXPONENT)
    for read_environment, shut_threads_down in entry_points:
        # The worker threads read the timeout when they start; shut them down so the next
        # multithreaded call starts them again (OpenBLAS' own after-fork path).
        read_environment()
        shut_threads_down()
    return True

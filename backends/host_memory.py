"""Keeping freed array memory in the process, so training steps do not page-fault.

Every training or inference step allocates and frees the same few-megabyte arrays
(activations, gate histories, im2col columns). glibc's allocator hands memory above a
(dynamic, at most 32 MB) size threshold back to the kernel with ``munmap``, and trims
more than twice that threshold off the top of its heap; either way the next step gets
fresh pages, which the kernel must fault in and zero. Measured on the benchmark
workloads: W3 (LSTM) took 1.1 million page faults in four epochs (21,000 with the settings
below) and ran 25-30% slower; W1-predict took 191,000 (18,000) and ran 18% slower.

The NumPy engine therefore sets two glibc ``mallopt`` parameters once, when it is first
created: arrays up to :data:`MMAP_THRESHOLD_BYTES` come from the reusable heap, and up to
:data:`TRIM_THRESHOLD_BYTES` of free heap is kept. Peak memory does not change; memory a
program frees is kept for reuse instead of returned (larger arrays are still returned).
Set ``LAMINA_TUNE_MALLOC=0`` in the environment to leave the allocator alone. Other C
libraries (musl, macOS, Windows) are left alone.
"""

import ctypes
import os
import platform

MMAP_THRESHOLD_BYTES = 32 * 1024 * 1024
TRIM_THRESHOLD_BYTES = 256 * 1024 * 1024
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3      # glibc's <malloc.h> parameter numbers
_STATE = {"tuned": None}


def keep_freed_memory():
    """Apply the allocator settings above once per process; returns whether they hold.

    Returns False (and changes nothing) when ``LAMINA_TUNE_MALLOC=0``, or when the C
    library is not glibc.
    """
    if _STATE["tuned"] is None:
        _STATE["tuned"] = _tune()
    return _STATE["tuned"]


def _tune():
    if os.environ.get("LAMINA_TUNE_MALLOC", "1").strip() == "0":
        return False
    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        return False
    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):      # pragma: no cover - an unusual glibc layout
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)) and \
        bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES))

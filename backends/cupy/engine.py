"""The CuPy engine (NVIDIA GPUs).

The kernels that are the same on every array module come from
:class:`~lamina.backends.array_engine.ArrayEngine`; this engine adds transfers, the random
numbers CuPy's ``Generator`` lacks and what needs its own device kernel. A batch runs as
one block (the interface's default): the GPU runs it at once.
"""

import numpy

from ..array_engine import ArrayEngine


def import_cupy():
    """Import CuPy and check that a CUDA device is usable; raise a clear error if not."""
    try:
        import cupy
    except ImportError as error:
        raise RuntimeError(
            "the 'cupy' backend needs CuPy, which is not installed: "
            "pip install 'lamina[cuda12]' (or 'lamina[cuda13]')"
        ) from error
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as error:  # CUDA driver/runtime missing raises various CuPy errors
        raise RuntimeError(
            f"the 'cupy' backend found CuPy but no usable CUDA GPU: {error}"
        ) from error
    if count < 1:
        raise RuntimeError("the 'cupy' backend found CuPy but no CUDA GPU on this machine")
    return cupy


class CupyBackend(ArrayEngine):
    """GPU engine on CuPy arrays (cuBLAS for GEMMs)."""

    name = "cupy"

    def __init__(self):
        self._cupy = import_cupy()

    @property
    def xp(self):
        return self._cupy

    def to_numpy(self, array):
        if isinstance(array, self._cupy.ndarray):
            return self._cupy.asnumpy(array)
        return numpy.asarray(array)

    def erf(self, x):
        from cupyx.scipy.special import erf

        return erf(x)

    def special(self, name, x):
        import cupyx.scipy.special

        return getattr(cupyx.scipy.special, name)(x).astype(x.dtype, copy=False)

    def permutation(self, generator, n):
        # CuPy's Generator has no permutation(): sort uniform keys instead.
        return self._cupy.argsort(generator.random(n))

    def scatter_add(self, shape, indices, updates):
        flat_indices = indices.reshape(-1)
        out = self._cupy.zeros(shape, dtype=updates.dtype)
        self._cupy.add.at(out, flat_indices,
                          updates.reshape((flat_indices.shape[0],) + tuple(shape[1:])))
        return out

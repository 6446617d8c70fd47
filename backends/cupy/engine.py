"""The CuPy engine (NVIDIA GPUs).

Reuses the NumPy engine's kernels through the array module and overrides only transfers,
random numbers and what needs a device kernel.
"""

from ..interface import Backend
from ..numpy.engine import NumpyBackend


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


class CupyBackend(NumpyBackend):
    """GPU engine on CuPy arrays (cuBLAS for GEMMs)."""

    name = "cupy"

    def __init__(self):
        super().__init__()
        self._cupy = import_cupy()

    @property
    def xp(self):
        return self._cupy

    def is_array(self, value):
        return isinstance(value, self._cupy.ndarray)

    def asarray(self, value, dtype=None):
        return self._cupy.asarray(value, dtype=dtype)

    def to_numpy(self, array):
        if isinstance(array, self._cupy.ndarray):
            return self._cupy.asnumpy(array)
        import numpy

        return numpy.asarray(array)

    # One block: the GPU runs a whole batch at once; host threads would only add launches.
    batch_blocks = Backend.batch_blocks
    run_blocks = Backend.run_blocks

    def make_generator(self, seed):
        return self._cupy.random.default_rng(seed)

    def erf(self, x):
        from cupyx.scipy.special import erf

        return erf(x)

    def permutation(self, generator, n):
        # CuPy's Generator has no permutation(): sort uniform keys instead.
        return self._cupy.argsort(generator.random(n))

    def scatter_add(self, shape, indices, updates):
        flat_indices = indices.reshape(-1)
        out = self._cupy.zeros(shape, dtype=updates.dtype)
        self._cupy.add.at(out, flat_indices,
                          updates.reshape((flat_indices.shape[0],) + tuple(shape[1:])))
        return out

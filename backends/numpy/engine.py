"""The NumPy engine (CPU).

The kernels that are the same on every array module come from
:class:`~lamina.backends.array_engine.ArrayEngine`; this engine adds what the CPU does
better: Numba-compiled kernels (:mod:`lamina.backends.numpy.compiled`, loaded on first use
through :func:`compiled`), convolution, pooling and recurrent steps as row blocks on threads
(:mod:`lamina.backends.numpy.threads`), and the process settings of
:mod:`lamina.backends.numpy.host_tuning`, made when the engine is first created.
"""

import importlib
import os
import threading
import warnings

import numpy

from ..array_engine import ArrayEngine
from . import host_tuning, threads as batch_threads


class NumpyBackend(ArrayEngine):
    """CPU engine on NumPy arrays (BLAS for GEMMs, Numba for fused kernels)."""

    name = "numpy"

    def __init__(self):
        host_tuning.apply()

    @property
    def xp(self):
        return numpy

    def to_numpy(self, array):
        return numpy.asarray(array)

    def permutation(self, generator, n):
        return generator.permutation(n)

    def erf(self, x):
        from scipy.special import erf  # scipy ships with scikit-learn, a dependency

        return erf(x).astype(x.dtype, copy=False)

    def linear(self, x, kernel, bias=None):
        """float16 GEMMs run as float32 BLAS GEMMs rounded back to float16 (NumPy has no
        float16 BLAS: its float16 matmul is several times slower than float32), as GPUs
        accumulate float16 products in float32."""
        if x.dtype == numpy.float16 and kernel.dtype == numpy.float16:
            out = super().linear(x.astype(numpy.float32), kernel.astype(numpy.float32))
            out = out.astype(numpy.float16)
            if bias is not None:
                out += bias
            return out
        return super().linear(x, kernel, bias)

    def scatter_add(self, shape, indices, updates):
        flat_indices = indices.reshape(-1)
        flat_updates = updates.reshape((flat_indices.shape[0],) + tuple(shape[1:]))
        out = numpy.zeros(shape, dtype=updates.dtype)
        if flat_indices.shape[0] == 0:
            return out
        # Rows sorted by index, then one reduceat per run of equal indices.
        order = numpy.argsort(flat_indices, kind="stable")
        sorted_indices = flat_indices[order]
        starts = numpy.flatnonzero(numpy.concatenate(
            [numpy.ones(1, dtype=bool), sorted_indices[1:] != sorted_indices[:-1]]))
        out[sorted_indices[starts]] = numpy.add.reduceat(flat_updates[order], starts, axis=0)
        return out

    # ------------------------------------------------------------- batch blocks
    def batch_blocks(self, batch, elements):
        """One block per BLAS thread (see :mod:`lamina.backends.numpy.threads`)."""
        return batch_threads.blocks(batch, elements)

    def run_blocks(self, work, blocks):
        return batch_threads.run(work, blocks)

    # --------------------------------------------------------- compiled kernels
    def compiled_module(self, name, dtype):
        """The Numba-compiled kernels module ``name`` of
        :mod:`lamina.backends.numpy.compiled` for float32 and float64 arrays; None for
        other dtypes, without Numba or with ``LAMINA_JIT=0``."""
        if numpy.dtype(dtype) not in COMPILED_DTYPES:
            return None
        return compiled(name)

    def lstm_cell_kernels(self, dtype):
        """Numba-compiled kernels (see :mod:`lamina.backends.numpy.compiled.cells`), as
        :meth:`compiled_module` gives them."""
        module = self.compiled_module("cells", dtype)
        return None if module is None else (module.lstm_cell_forward, module.lstm_cell_backward)

    def gru_cell_kernels(self, dtype):
        """Numba-compiled kernels, as :meth:`lstm_cell_kernels`."""
        module = self.compiled_module("cells", dtype)
        return None if module is None else (module.gru_cell_forward, module.gru_cell_backward)

    def optimizer_kernel(self, name, dtype):
        """The compiled Adam step (:func:`lamina.backends.numpy.compiled.optimizers.adam_update`)
        for ``"adam"``, as :meth:`compiled_module` gives it; None for other rules."""
        module = self.compiled_module("optimizers", dtype) if name == "adam" else None
        return None if module is None else module.adam_update


_COMPILED = {}
_COMPILED_LOCK = threading.Lock()
#: The dtypes the compiled kernels are built for (Numba's CPU target has no float16).
COMPILED_DTYPES = (numpy.dtype("float32"), numpy.dtype("float64"))


def compiled(name):
    """The module of Numba-compiled kernels ``name`` (``"cells"``,
    ``"pooling"`` or ``"optimizers"`` in :mod:`lamina.backends.numpy.compiled`), imported
    on first use; None when ``LAMINA_JIT=0`` is set or the import fails (Numba missing:
    silently; any other error, such as no writable cache directory: with a warning)."""
    with _COMPILED_LOCK:
        if name not in _COMPILED:
            _COMPILED[name] = _import_compiled(name)
        return _COMPILED[name]


def _import_compiled(name):
    if os.environ.get("LAMINA_JIT", "1") == "0":
        return None
    try:
        return importlib.import_module(f"{__package__}.compiled.{name}")
    except ImportError:
        return None
    except Exception as error:  # noqa: BLE001 - Numba raises RuntimeError, OSError, ...
        warnings.warn(f"lamina: compiled kernels {name!r} unavailable, using NumPy calls "
                      f"instead: {error}", RuntimeWarning, stacklevel=3)
        return None

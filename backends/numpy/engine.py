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

    xp = numpy

    def to_numpy(self, array):
        return numpy.asarray(array)

    def permutation(self, generator, n):
        return generator.permutation(n)

    def erf(self, x):
        from scipy.special import erf  # scipy ships with scikit-learn, a dependency

        return erf(x).astype(x.dtype, copy=False)

    def special(self, name, x):
        import scipy.special

        return getattr(scipy.special, name)(x).astype(x.dtype, copy=False)

    def linear(self, x, kernel, bias=None):
        """float16 GEMMs run as float32 BLAS GEMMs rounded back to float16 (NumPy has no
        float16 BLAS: its float16 matmul is several times slower than float32), as GPUs
        accumulate float16 products in float32."""
        if x.dtype.char == "e" and kernel.dtype.char == "e":   # float16
            out = super().linear(x.astype(numpy.float32), kernel.astype(numpy.float32))
            out = out.astype(numpy.float16)
            if bias is not None:
                out += bias
            return out
        out = x @ kernel if x.ndim == 2 else super().linear(x, kernel)
        if bias is not None:
            out += bias
        return out

    def scatter_add(self, shape, indices, updates):
        flat_indices = indices.reshape(-1)
        flat_updates = updates.reshape((flat_indices.shape[0],) + tuple(shape[1:]))
        out = numpy.zeros(shape, dtype=updates.dtype)
        if flat_indices.shape[0] == 0:
            return out
        kernels = self.compiled_module("scatter", updates.dtype)
        if kernels is not None and len(shape) > 1 and shape[0] > 0:
            width = out.size // shape[0]
            kernels.scatter_add_rows(out.reshape(shape[0], width), flat_indices,
                                     numpy.ascontiguousarray(flat_updates).reshape(-1, width))
            return out
        # Rows sorted by index, then one reduceat per run of equal indices.
        order = numpy.argsort(flat_indices, kind="stable")
        sorted_indices = flat_indices[order]
        starts = numpy.flatnonzero(numpy.concatenate(
            [numpy.ones(1, dtype=bool), sorted_indices[1:] != sorted_indices[:-1]]))
        out[sorted_indices[starts]] = numpy.add.reduceat(flat_updates[order], starts, axis=0)
        return out

    # ------------------------------------------------- softmax and layer norm
    def _last_axis_kernels(self, name, x, axis):
        """The compiled module ``name`` for a kernel over the last axis of ``x``, or None
        (another axis, an empty array, a dtype without compiled kernels)."""
        if axis not in (-1, x.ndim - 1) or x.size == 0:
            return None
        return self.compiled_module(name, x.dtype)

    def _rows(self, kernel, *arrays, out=None):
        """Run ``kernel(*rows, out_rows)`` on the arrays as C-contiguous 2-D (rows, last
        axis) views; the result is ``out`` (C-contiguous) or a new array."""
        shape = arrays[0].shape
        rows = [numpy.ascontiguousarray(a).reshape(-1, shape[-1]) for a in arrays]
        result = numpy.empty(shape, dtype=arrays[0].dtype) if out is None else out
        kernel(*rows, result.reshape(-1, shape[-1]))
        return result

    def softmax(self, x, axis=-1, out=None):
        """:meth:`ArrayEngine.softmax`; over the last axis one compiled loop per row
        (:mod:`lamina.backends.numpy.compiled.softmax`)."""
        kernels = self._last_axis_kernels("softmax", x, axis)
        if kernels is None or (out is not None and not out.flags.c_contiguous):
            return super().softmax(x, axis=axis, out=out)
        return self._rows(kernels.softmax_forward, x, out=out)

    def log_softmax(self, x, axis=-1):
        kernels = self._last_axis_kernels("softmax", x, axis)
        if kernels is None:
            return super().log_softmax(x, axis=axis)
        return self._rows(kernels.log_softmax_forward, x)

    def softmax_backward(self, grad, out, axis=-1):
        kernels = self._last_axis_kernels("softmax", out, axis)
        if kernels is None or grad.dtype != out.dtype:
            return super().softmax_backward(grad, out, axis=axis)
        return self._rows(kernels.softmax_backward, grad, out)

    def log_softmax_backward(self, grad, out, axis=-1):
        kernels = self._last_axis_kernels("softmax", out, axis)
        if kernels is None or grad.dtype != out.dtype:
            return super().log_softmax_backward(grad, out, axis=axis)
        return self._rows(kernels.log_softmax_backward, grad, out)

    def layer_norm_forward(self, x, gamma, beta, epsilon):
        """:meth:`ArrayEngine.layer_norm_forward` as one compiled loop per row
        (:mod:`lamina.backends.numpy.compiled.normalization`), the rows in blocks on
        threads; the same context."""
        kernels = self._last_axis_kernels("normalization", x, -1)
        if kernels is None or any(p is not None and p.dtype != x.dtype for p in (gamma, beta)):
            return super().layer_norm_forward(x, gamma, beta, epsilon)
        rows = numpy.ascontiguousarray(x).reshape(-1, x.shape[-1])
        y, normalized = numpy.empty(x.shape, x.dtype), numpy.empty(x.shape, x.dtype)
        inv_std = numpy.empty(x.shape[:-1] + (1,), x.dtype)
        y_rows, normalized_rows = y.reshape(rows.shape), normalized.reshape(rows.shape)
        inv_std_rows = inv_std.reshape(-1)
        gamma_in = rows[0] if gamma is None else numpy.ascontiguousarray(gamma)
        beta_in = rows[0] if beta is None else numpy.ascontiguousarray(beta)
        epsilon = x.dtype.type(epsilon)

        def work(block):
            kernels.layer_norm_forward(rows[block], gamma_in, beta_in, epsilon,
                                       gamma is not None, beta is not None, y_rows[block],
                                       normalized_rows[block], inv_std_rows[block])

        self.run_blocks(work, self.batch_blocks(rows.shape[0], rows.size))
        return y, (normalized, gamma, inv_std)

    def layer_norm_backward(self, grad_y, context):
        """:meth:`ArrayEngine.layer_norm_backward` as one compiled loop per row, the rows
        in blocks on threads (each block sums its own part of the parameter gradients)."""
        normalized, gamma, inv_std = context
        kernels = self._last_axis_kernels("normalization", normalized, -1)
        if kernels is None or grad_y.dtype != normalized.dtype:
            return super().layer_norm_backward(grad_y, context)
        rows = numpy.ascontiguousarray(grad_y).reshape(-1, grad_y.shape[-1])
        grad_x = numpy.empty(grad_y.shape, grad_y.dtype)
        grad_x_rows, normalized_rows = grad_x.reshape(rows.shape), normalized.reshape(rows.shape)
        inv_std_rows = inv_std.reshape(-1)
        gamma_in = rows[0] if gamma is None else numpy.ascontiguousarray(gamma)

        def work(block, total):      # total: (grad_gamma, grad_beta) of the block's rows
            kernels.layer_norm_backward(rows[block], normalized_rows[block], gamma_in,
                                        inv_std_rows[block], gamma is not None,
                                        grad_x_rows[block], total[0], total[1])

        grad_gamma, grad_beta = self.run_block_sums(
            work, self.batch_blocks(rows.shape[0], rows.size), (2, rows.shape[1]),
            grad_y.dtype)
        return grad_x, grad_gamma, grad_beta

    # ------------------------------------------------------------- batch blocks
    def keep_sign(self, out):
        """One bit a value, per sample (a thirty-second of the float32 output: at
        112x112x3, batch 64, W2's first layer keeps 3 MB instead of 99)."""
        return numpy.packbits(out.reshape(out.shape[0], -1) > 0, axis=1)

    def sign_rows(self, kept, rows, shape):
        per_sample = int(numpy.prod(shape[1:]))
        bits = numpy.unpackbits(kept[rows], axis=1, count=per_sample)
        return bits.view(bool).reshape((bits.shape[0],) + tuple(shape[1:]))

    def batch_blocks(self, batch, elements):
        """One block per BLAS thread (see :mod:`lamina.backends.numpy.threads`)."""
        return batch_threads.blocks(batch, elements)

    def run_blocks(self, work, blocks):
        return batch_threads.run(work, blocks)

    def replica_threads(self):
        """One replica per BLAS thread when blocks run on threads here."""
        return batch_threads.thread_count()

    def run_replicas(self, work, count):
        return batch_threads.run_concurrently(work, count)

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

    def recurrent_loop_kernels(self, cell, dtype):
        """Numba-compiled time loops calling NumPy's BLAS (see
        :mod:`lamina.backends.numpy.compiled.recurrent_loop`), as :meth:`compiled_module`
        gives them; None also when that BLAS has no CBLAS entry point."""
        module = self.compiled_module("recurrent_loop", dtype)
        return None if module is None else module.loop_kernels(cell, dtype)

    def dense_epilogue_kernels(self, dtype):
        """Numba-compiled kernels (see :mod:`lamina.backends.numpy.compiled.dense`), as
        :meth:`compiled_module` gives them."""
        module = self.compiled_module("dense", dtype)
        return None if module is None else (module.epilogue_forward, module.epilogue_backward)

    def attention_core_kernels(self, dtype):
        """Numba-compiled attention core calling NumPy's BLAS (see
        :mod:`lamina.backends.numpy.compiled.attention`), as :meth:`compiled_module`
        gives it; None also when that BLAS has no CBLAS entry point."""
        module = self.compiled_module("attention", dtype)
        return None if module is None else module.attention_kernels(dtype)

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
    """The module of Numba-compiled kernels ``name`` (``"cells"``, ``"pooling"``,
    ``"optimizers"``, ``"softmax"``, ``"normalization"``, ``"scatter"``,
    ``"recurrent_loop"``, ``"attention"`` or ``"dense"`` in
    :mod:`lamina.backends.numpy.compiled`), imported
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

"""The NumPy engine (CPU).

Every kernel is written against ``self.xp`` so that the CuPy engine reuses this code and
overrides only what a GPU needs its own kernel for. Hot kernels work in place on
preallocated scratch buffers to keep passes over memory few.
"""

import importlib
import os
import threading
import warnings

import numpy

from ..interface import Backend
from . import threads as batch_threads
from .. import conv as conv_kernels, pool as pool_kernels


class NumpyBackend(Backend):
    """CPU engine on NumPy arrays (BLAS for GEMMs)."""

    name = "numpy"

    def __init__(self):
        self._scratch = {}

    @property
    def xp(self):
        return numpy

    def scratch(self, shape, dtype, slot=0):
        """A reusable uninitialized buffer of ``shape``/``dtype`` (for in-place kernels)."""
        key = (tuple(shape), numpy.dtype(dtype).str, slot)
        buffer = self._scratch.get(key)
        if buffer is None:
            buffer = self.xp.empty(shape, dtype=dtype)
            self._scratch[key] = buffer
        return buffer

    # ------------------------------------------------------------------ arrays
    def is_array(self, value):
        return isinstance(value, numpy.ndarray)

    def asarray(self, value, dtype=None):
        return numpy.asarray(value, dtype=dtype)

    def to_numpy(self, array):
        return numpy.asarray(array)

    # ------------------------------------------------------------------ random
    def make_generator(self, seed):
        return self.xp.random.default_rng(seed)

    def random_normal(self, generator, shape, dtype, mean=0.0, stddev=1.0):
        values = generator.standard_normal(size=tuple(shape), dtype=self._draw_dtype(dtype))
        if stddev != 1.0:
            values *= stddev
        if mean != 0.0:
            values += mean
        return values.astype(dtype, copy=False)

    def random_uniform(self, generator, shape, dtype, minval=0.0, maxval=1.0):
        values = generator.random(size=tuple(shape), dtype=self._draw_dtype(dtype))
        values *= maxval - minval
        values += minval
        return values.astype(dtype, copy=False)

    def permutation(self, generator, n):
        return generator.permutation(n)

    @staticmethod
    def _draw_dtype(dtype):
        return "float32" if numpy.dtype(dtype) in (numpy.float16, numpy.float32) else "float64"

    def erf(self, x):
        from scipy.special import erf  # scipy ships with scikit-learn, a dependency

        return erf(x).astype(x.dtype, copy=False)

    # ----------------------------------------------------------- linear algebra
    def matmul(self, a, b):
        return self.xp.matmul(a, b)

    def linear(self, x, kernel, bias=None):
        if x.ndim == 2:
            out = x @ kernel
        else:
            out = (x.reshape(-1, x.shape[-1]) @ kernel).reshape(x.shape[:-1] + kernel.shape[1:])
        if bias is not None:
            out += bias
        return out

    # ------------------------------------------------------- softmax and losses
    def softmax(self, x, axis=-1):
        out = x - x.max(axis=axis, keepdims=True)
        self.xp.exp(out, out=out)
        out /= out.sum(axis=axis, keepdims=True)
        return out

    def log_softmax(self, x, axis=-1):
        out = x - x.max(axis=axis, keepdims=True)
        out -= self.xp.log(self.xp.exp(out).sum(axis=axis, keepdims=True))
        return out

    def sparse_softmax_cross_entropy(self, logits, labels):
        xp = self.xp
        shifted = logits - logits.max(axis=-1, keepdims=True)
        probabilities = xp.exp(shifted)
        totals = probabilities.sum(axis=-1, keepdims=True)
        rows = xp.arange(logits.shape[0])
        losses = xp.log(totals[:, 0]) - shifted[rows, labels]
        probabilities /= totals
        return losses, probabilities

    def softmax_cross_entropy(self, logits, targets):
        log_probabilities = self.log_softmax(logits, axis=-1)
        losses = -(targets * log_probabilities).sum(axis=-1)
        return losses, self.xp.exp(log_probabilities)

    # ------------------------------------------------------------- convolution
    def conv_forward(self, x, kernel, strides, padding, dilation_rate, groups=1, out=None):
        return conv_kernels.conv_forward(self.xp, x, kernel, strides, padding,
                                         dilation_rate, groups, out)

    def conv_backward_input(self, grad_output, kernel, input_shape, strides, padding,
                            dilation_rate, groups=1):
        return conv_kernels.conv_backward_input(self.xp, grad_output, kernel, input_shape,
                                                strides, padding, dilation_rate, groups)

    def conv_backward_kernel(self, x, grad_output, kernel_shape, strides, padding,
                             dilation_rate, groups=1):
        return conv_kernels.conv_backward_kernel(self.xp, x, grad_output, kernel_shape,
                                                 strides, padding, dilation_rate, groups)

    # ----------------------------------------------------------------- pooling
    def pool_forward(self, x, pool_size, strides, padding, mode, out=None):
        return pool_kernels.pool_forward(self.xp, x, pool_size, strides, padding, mode, out,
                                         self._compiled("pooling", x.dtype))

    def pool_backward(self, grad_output, context, out=None):
        return pool_kernels.pool_backward(self.xp, grad_output, context, out,
                                          self._compiled("pooling", grad_output.dtype))

    # ------------------------------------------------------------- batch blocks
    def batch_blocks(self, batch, elements):
        """One block per BLAS thread (see :mod:`lamina.backends.numpy.threads`)."""
        return batch_threads.blocks(batch, elements)

    def run_blocks(self, work, blocks):
        return batch_threads.run(work, blocks)

    # ------------------------------------------------------- recurrent cells
    def lstm_cell_kernels(self, dtype):
        """Numba-compiled kernels (see :mod:`lamina.backends.numpy.compiled.cells`) for float32
        and float64; None for other dtypes, without Numba or with ``LAMINA_JIT=0``."""
        module = self._compiled("cells", dtype)
        return None if module is None else (module.lstm_cell_forward, module.lstm_cell_backward)

    def gru_cell_kernels(self, dtype):
        """Numba-compiled kernels, as :meth:`lstm_cell_kernels`."""
        module = self._compiled("cells", dtype)
        return None if module is None else (module.gru_cell_forward, module.gru_cell_backward)

    def _compiled(self, name, dtype):
        """This engine's compiled kernels module ``name`` for arrays of ``dtype``; None on
        other engines and for dtypes the kernels are not built for."""
        if self.xp is not numpy or numpy.dtype(dtype) not in COMPILED_DTYPES:
            return None
        return compiled(name)

    # ----------------------------------------------------------- normalization
    def _normalize(self, x, gamma, beta, epsilon, axis, keepdims):
        """Shared forward of batch and layer norm: statistics over ``axis``, then
        ``gamma * (x - mean) / sqrt(variance + epsilon) + beta``.

        Returns (y, mean, variance, normalized, inv_std).
        """
        xp = self.xp
        mean = x.mean(axis=axis, keepdims=keepdims)
        centered = x - mean
        variance = xp.square(centered).mean(axis=axis, keepdims=keepdims)
        inv_std = 1.0 / xp.sqrt(variance + epsilon)
        normalized = centered
        normalized *= inv_std
        y = normalized * gamma if gamma is not None else normalized.copy()
        if beta is not None:
            y += beta
        return y, mean, variance, normalized, inv_std

    def batch_norm_forward(self, x, gamma, beta, epsilon):
        y, mean, variance, normalized, inv_std = self._normalize(
            x, gamma, beta, epsilon, tuple(range(x.ndim - 1)), keepdims=False)
        return y, mean, variance, (normalized, gamma, inv_std)

    def batch_norm_backward(self, grad_y, context):
        normalized, gamma, inv_std = context
        axes = tuple(range(grad_y.ndim - 1))
        count = grad_y.size // grad_y.shape[-1]
        grad_beta = grad_y.sum(axis=axes)
        grad_gamma = (grad_y * normalized).sum(axis=axes)
        scale = inv_std * gamma if gamma is not None else inv_std
        grad_x = grad_y - grad_beta / count
        grad_x -= normalized * (grad_gamma / count)
        grad_x *= scale
        return grad_x, grad_gamma, grad_beta

    def layer_norm_forward(self, x, gamma, beta, epsilon):
        y, _, _, normalized, inv_std = self._normalize(x, gamma, beta, epsilon, -1,
                                                       keepdims=True)
        return y, (normalized, gamma, inv_std)

    def layer_norm_backward(self, grad_y, context):
        normalized, gamma, inv_std = context
        axes = tuple(range(grad_y.ndim - 1))
        grad_beta = grad_y.sum(axis=axes)
        grad_gamma = (grad_y * normalized).sum(axis=axes)
        grad_normalized = grad_y * gamma if gamma is not None else grad_y.copy()
        width = grad_y.shape[-1]
        grad_x = grad_normalized - grad_normalized.mean(axis=-1, keepdims=True)
        grad_x -= normalized * ((grad_normalized * normalized).sum(axis=-1, keepdims=True) / width)
        grad_x *= inv_std
        return grad_x, grad_gamma, grad_beta

    # ----------------------------------------------------- gather and scatter
    def gather(self, params, indices):
        return self.xp.take(params, indices, axis=0)

    def scatter_add(self, shape, indices, updates):
        xp = self.xp
        flat_indices = indices.reshape(-1)
        flat_updates = updates.reshape((flat_indices.shape[0],) + tuple(shape[1:]))
        out = xp.zeros(shape, dtype=updates.dtype)
        if flat_indices.shape[0] == 0:
            return out
        order = xp.argsort(flat_indices, kind="stable")
        sorted_indices = flat_indices[order]
        starts = xp.flatnonzero(xp.concatenate(
            [xp.ones(1, dtype=bool), sorted_indices[1:] != sorted_indices[:-1]]))
        out[sorted_indices[starts]] = xp.add.reduceat(flat_updates[order], starts, axis=0)
        return out

    # ---------------------------------------------------- optimizer updates
    def sgd_update(self, variable, gradient, learning_rate, momentum, velocity, nesterov):
        if momentum == 0.0 or velocity is None:
            variable -= learning_rate * gradient
            return
        velocity *= momentum
        velocity -= learning_rate * gradient
        if nesterov:
            variable += momentum * velocity - learning_rate * gradient
        else:
            variable += velocity

    def adam_update(self, variable, gradient, m, v, learning_rate, beta_1, beta_2,
                    epsilon, step, v_hat=None, weight_decay=0.0):
        alpha = learning_rate * (1.0 - beta_2 ** step) ** 0.5 / (1.0 - beta_1 ** step)
        compiled_step = self._compiled("optimizers", variable.dtype)
        arrays = (variable, gradient, m, v) + (() if v_hat is None else (v_hat,))
        if compiled_step is not None and all(
                a.dtype == variable.dtype and a.flags.c_contiguous for a in arrays):
            compiled_step.adam_update(variable, gradient, m, v, alpha, beta_1, beta_2,
                                      epsilon, 1.0 - learning_rate * weight_decay, v_hat)
            return
        xp = self.xp
        if weight_decay:
            variable *= 1.0 - learning_rate * weight_decay
        # m = b1*m + (1-b1)*g written as b1*(m-g) + g: three in-place passes, no temporary.
        m -= gradient
        m *= beta_1
        m += gradient
        scratch = self.scratch(gradient.shape, gradient.dtype)
        xp.multiply(gradient, gradient, out=scratch)
        v -= scratch
        v *= beta_2
        v += scratch
        denominator_source = v
        if v_hat is not None:
            xp.maximum(v_hat, v, out=v_hat)
            denominator_source = v_hat
        xp.sqrt(denominator_source, out=scratch)
        scratch += epsilon
        xp.divide(m, scratch, out=scratch)
        scratch *= alpha
        variable -= scratch

    def rmsprop_update(self, variable, gradient, mean_square, learning_rate, rho,
                       epsilon, momentum=0.0, velocity=None):
        xp = self.xp
        scratch = self.scratch(gradient.shape, gradient.dtype)
        xp.multiply(gradient, gradient, out=scratch)
        mean_square -= scratch
        mean_square *= rho
        mean_square += scratch
        xp.add(mean_square, epsilon, out=scratch)
        xp.sqrt(scratch, out=scratch)
        xp.divide(gradient, scratch, out=scratch)
        scratch *= learning_rate
        if momentum > 0.0 and velocity is not None:
            velocity *= momentum
            velocity += scratch
            variable -= velocity
        else:
            variable -= scratch

    def adagrad_update(self, variable, gradient, accumulator, learning_rate, epsilon):
        xp = self.xp
        scratch = self.scratch(gradient.shape, gradient.dtype)
        xp.multiply(gradient, gradient, out=scratch)
        accumulator += scratch
        xp.add(accumulator, epsilon, out=scratch)
        xp.sqrt(scratch, out=scratch)
        xp.divide(gradient, scratch, out=scratch)
        scratch *= learning_rate
        variable -= scratch


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

"""The array-module engine: every kernel that is the same on each NumPy-API array module.

:class:`ArrayEngine` writes the interface's kernels once, against ``self.xp`` (``numpy``,
``cupy``, ...): GEMM with bias, softmax and its cross-entropies, convolution and pooling
(through :mod:`lamina.backends.conv` and :mod:`lamina.backends.pool`), batch and layer
normalization, gather, random draws from a ``Generator``. The engines
(:mod:`lamina.backends.numpy`, :mod:`lamina.backends.cupy`) inherit it, say which array
module they use, and override only what their device does differently or better: transfers,
``erf``, permutations, scatter-add, and their own compiled kernels.
"""

import numpy

from . import conv as conv_kernels, pool as pool_kernels
from .interface import Backend


class ArrayEngine(Backend):
    """The kernels written once with the engine's array module ``self.xp``.

    A subclass provides ``xp``, ``to_numpy``, ``erf``, ``permutation`` and
    ``scatter_add``, and may return compiled kernels from :meth:`compiled_module`.
    """

    # ------------------------------------------------------------------ arrays
    def is_array(self, value):
        return isinstance(value, self.xp.ndarray)

    def asarray(self, value, dtype=None):
        return self.xp.asarray(value, dtype=dtype)

    # --------------------------------------------------------- compiled kernels
    def compiled_module(self, name, dtype):
        """This engine's module of compiled kernels ``name`` (``"pooling"``, ...) for arrays
        of ``dtype``, or None: then the kernels run as array calls. This engine has none."""
        return None

    # ------------------------------------------------------------------ random
    def make_generator(self, seed):
        return self.xp.random.default_rng(seed)

    def random_normal(self, generator, shape, dtype, mean=0.0, stddev=1.0):
        values = generator.standard_normal(size=tuple(shape), dtype=_draw_dtype(dtype))
        if stddev != 1.0:
            values *= stddev
        if mean != 0.0:
            values += mean
        return values.astype(dtype, copy=False)

    def random_uniform(self, generator, shape, dtype, minval=0.0, maxval=1.0):
        values = generator.random(size=tuple(shape), dtype=_draw_dtype(dtype))
        values *= maxval - minval
        values += minval
        return values.astype(dtype, copy=False)

    # ----------------------------------------------------------- linear algebra
    def linear(self, x, kernel, bias=None):
        if x.ndim == 2:
            out = x @ kernel
        else:
            out = (x.reshape(-1, x.shape[-1]) @ kernel).reshape(x.shape[:-1] + kernel.shape[1:])
        if bias is not None:
            out += bias
        return out

    # ------------------------------------------------------- softmax and losses
    def softmax(self, x, axis=-1, out=None):
        """:meth:`Backend.softmax`, written into ``out`` (which may be ``x``) when given."""
        out = self.xp.subtract(x, x.max(axis=axis, keepdims=True), out=out)
        self.xp.exp(out, out=out)
        out /= out.sum(axis=axis, keepdims=True)
        return out

    def softmax_backward(self, grad, out, axis=-1):
        """The gradient before :meth:`softmax` from the gradient ``grad`` of its output
        ``out``: ``out * (grad - sum(grad * out, axis))``."""
        weighted = grad * out
        return weighted - out * weighted.sum(axis=axis, keepdims=True)

    def log_softmax_backward(self, grad, out, axis=-1):
        """The gradient before :meth:`log_softmax` from the gradient ``grad`` of its
        output ``out``: ``grad - exp(out) * sum(grad, axis)``."""
        return grad - self.xp.exp(out) * grad.sum(axis=axis, keepdims=True)

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
        xp = self.xp
        log_probabilities = self.log_softmax(logits, axis=-1)
        probabilities = xp.exp(log_probabilities)
        # A -inf logit (a masked class) has log-probability -inf: where its target is 0 it
        # contributes 0 (0 * -inf would be NaN), as in the sparse loss.
        log_probabilities = xp.where(targets == 0, 0, log_probabilities)
        losses = -(targets * log_probabilities).sum(axis=-1)
        return losses, probabilities

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
                                         self.compiled_module("pooling", x.dtype))

    def pool_backward(self, grad_output, context, out=None):
        return pool_kernels.pool_backward(self.xp, grad_output, context, out,
                                          self.compiled_module("pooling", grad_output.dtype))

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


def _draw_dtype(dtype):
    """The dtype random numbers are drawn in: float32 for float16/float32, else float64."""
    return "float32" if numpy.dtype(dtype) in (numpy.float16, numpy.float32) else "float64"

"""Normalization ops of ``keras.ops.nn`` built from differentiable ops: ``moments``,
``batch_normalization`` (with given statistics), ``normalize`` (Lp), ``rms_normalization``
and the image metric ``psnr``. (The fused training-mode batch and layer norms are in
:mod:`.nn`.)"""

import math

from .. import state

from .core import data_of, float_data
from .elementwise import log10, rsqrt
from .linalg import norm
from .math import add, divide, maximum, minimum, multiply, subtract
from .reductions import mean, sum as reduce_sum
from .shape import expand_dims, reshape, squeeze



def moments(x, axes, keepdims=False, synchronized=False):
    """``(mean, variance)`` of ``x`` over ``axes`` (variance as ``E[x^2] - E[x]^2``, as
    Keras computes it). ``synchronized`` (cross-replica) is not supported."""
    if synchronized:
        raise NotImplementedError("moments: synchronized=True needs a distributed strategy, "
                                  "which lamina's ops do not have")
    axes = tuple(axes) if isinstance(axes, (list, tuple)) else (axes,)
    average = mean(x, axis=axes, keepdims=True)
    variance = subtract(mean(multiply(x, x), axis=axes, keepdims=True),
                        multiply(average, average))
    if not keepdims:
        average, variance = squeeze(average, axes), squeeze(variance, axes)
    return average, variance


def batch_normalization(x, mean, variance, axis, offset=None, scale=None, epsilon=1e-3):
    """``(x - mean) / sqrt(variance + epsilon) * scale + offset`` with the 1-d statistics
    and parameters laid along ``axis``."""
    a = data_of(x)
    shape = [1] * a.ndim
    shape[axis] = -1

    def laid(value):
        return reshape(value, shape)

    factor = rsqrt(add(laid(variance), epsilon))
    if scale is not None:
        factor = multiply(factor, laid(scale))
    out = multiply(subtract(x, laid(mean)), factor)
    return out if offset is None else add(out, laid(offset))


def normalize(x, axis=-1, order=2, epsilon=None):
    """``x`` divided by its ``order``-norm along ``axis`` (at least ``epsilon``)."""
    if not isinstance(order, int) or order < 1:
        raise ValueError(f"normalize: order must be an int >= 1, got {order!r}")
    epsilon = state.epsilon() if epsilon is None else epsilon
    if getattr(data_of(x), "ndim", 0) == 0:
        x = expand_dims(x, 0)
    if order == 2:
        inverse_norm = minimum(rsqrt(reduce_sum(multiply(x, x), axis=axis, keepdims=True)),
                               1.0 / epsilon)
        return multiply(x, inverse_norm)
    return divide(x, maximum(norm(x, ord=order, axis=axis, keepdims=True), epsilon))


def rms_normalization(x, scale=None, axis=-1, epsilon=None):
    """``x / sqrt(mean(x ** 2, axis) + epsilon)``, times ``scale`` when given."""
    epsilon = state.epsilon() if epsilon is None else epsilon
    out = multiply(x, rsqrt(add(mean(multiply(x, x), axis=axis, keepdims=True), epsilon)))
    return out if scale is None else multiply(out, scale)


def psnr(x1, x2, max_val):
    """Peak signal-to-noise ratio ``20 log10(max_val) - 10 log10(mse)`` in dB over all
    elements of two same-shape tensors."""
    shape1, shape2 = tuple(data_of(x1).shape), tuple(data_of(x2).shape)
    if shape1 != shape2:
        raise ValueError(f"psnr: inputs must have the same shape, got {shape1} and {shape2}")
    error = mean(multiply(subtract(x1, x2), subtract(x1, x2)))
    peak = 20 * math.log10(float(max_val)) if not hasattr(data_of(max_val), "shape") \
        else multiply(log10(float_data(max_val)), 20.0)
    return subtract(peak, multiply(log10(error), 10.0))

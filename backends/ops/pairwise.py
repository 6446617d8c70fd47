"""Pairwise quantities with ``keras.ops`` names: ``cdist`` (Euclidean distances between
two sets of vectors) and ``corrcoef`` (the Pearson correlation matrix), composed of
differentiable ops."""

import numpy as np

from .conversion import convert_to_tensor
from .core import float_data
from .elementwise import sqrt
from .math import clip, matmul
from .reductions import mean, sum
from .shape import expand_dims, reshape, swapaxes


def cdist(x, y):
    """Euclidean distances between the rows of ``x`` ``(..., m, d)`` and of ``y``
    ``(..., n, d)``: shape ``(..., m, n)``, the batch dimensions broadcast.

    Example:
        >>> cdist([[0.0, 0.0], [1.0, 1.0]], [[1.0, 0.0], [0.0, 1.0]])  # [[1, 1], [1, 1.414]]
    """
    a, b = float_data(x), float_data(y)
    if a.ndim < 2 or b.ndim < 2:
        raise ValueError(f"cdist needs inputs of rank >= 2 (..., points, features), got "
                         f"x.shape={tuple(a.shape)}, y.shape={tuple(b.shape)}")
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(f"cdist needs x and y with the same last dimension, got "
                         f"x.shape={tuple(a.shape)}, y.shape={tuple(b.shape)}")
    try:
        np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError:
        raise ValueError(f"cdist needs broadcastable batch dimensions, got "
                         f"x.shape={tuple(a.shape)}, y.shape={tuple(b.shape)}") from None
    x, y = convert_to_tensor(x, a.dtype), convert_to_tensor(y, b.dtype)
    difference = expand_dims(x, -2) - expand_dims(y, -3)
    return sqrt(sum(difference * difference, axis=-1))


def corrcoef(x):
    """Pearson correlation coefficients between the rows (variables) of ``x`` ``(N, D)``
    (D observations each): an ``(N, N)`` matrix, clipped to [-1, 1]; a 1-d ``x`` gives
    the scalar 1. Integer input gives ``floatx()``.

    Example:
        >>> corrcoef([[1.0, 2.0, 3.0], [3.0, 1.0, 2.0]])   # [[1, -0.5], [-0.5, 1]]
    """
    a = float_data(x)
    if a.ndim not in (1, 2):
        raise ValueError(f"corrcoef needs a 1-d or 2-d input (variables, observations), "
                         f"got shape {tuple(a.shape)}")
    x = convert_to_tensor(x, a.dtype)
    rows = reshape(x, (1, -1)) if a.ndim == 1 else x
    centred = rows - mean(rows, axis=1, keepdims=True)
    covariance = matmul(centred, swapaxes(centred, 0, 1))
    scale = sqrt(sum(centred * centred, axis=1, keepdims=True))
    result = clip(covariance / (scale * swapaxes(scale, 0, 1)), -1.0, 1.0)
    return reshape(result, ()) if a.ndim == 1 else result

"""Color-space ops with ``keras.ops.image`` names: ``rgb_to_grayscale``, ``rgb_to_hsv``,
``hsv_to_rgb`` (Keras' formulas: TensorFlow's luma weights, dm_pix's HSV planes), composed
of differentiable ops."""

import numpy as np

from .conversion import cast, convert_to_tensor
from .image import check_data_format
from .logic import equal, greater, less, where
from .math import clip, maximum, minimum, mod
from .elementwise import abs as abs_op
from .products import tensordot
from .shape import expand_dims, stack, unstack

_LUMA = np.array([0.2989, 0.5870, 0.1140])


def _channels(name, images, data_format, allowed):
    """``images`` as a Tensor of rank 3 or 4 and its channel axis (its size in
    ``allowed``)."""
    data_format = check_data_format(name, data_format)
    x = convert_to_tensor(images)
    if x.ndim not in (3, 4):
        raise ValueError(f"{name} needs images of rank 3 or 4 (one image or a batch), got "
                         f"images.shape={tuple(x.shape)}")
    axis = x.ndim - 1 if data_format == "channels_last" else x.ndim - 3
    if x.shape[axis] not in allowed:
        raise ValueError(f"{name} needs {' or '.join(map(str, allowed))} channels, got "
                         f"images.shape={tuple(x.shape)} ({data_format})")
    return x, axis


def _float_only(name, x):
    if np.dtype(x.dtype).kind != "f":
        raise ValueError(f"{name} needs float images, got dtype {np.dtype(x.dtype).name}")


def rgb_to_grayscale(images, data_format=None):
    """Luma of RGB ``images`` (``0.2989 R + 0.587 G + 0.114 B``, one channel, the input's
    dtype) as ``keras.ops.image.rgb_to_grayscale``; grayscale input is returned as is
    (differentiable for float images).

    Example:
        >>> rgb_to_grayscale(np.ones((2, 2, 3))).shape
        (2, 2, 1)
    """
    x, axis = _channels("rgb_to_grayscale", images, data_format, (1, 3))
    if x.shape[axis] == 1:
        return x
    source = np.dtype(x.dtype)
    compute = source if source.kind == "f" else np.dtype("float32")
    gray = tensordot(cast(x, compute.name), convert_to_tensor(_LUMA.astype(compute)),
                     axes=([axis], [0]))
    return cast(expand_dims(gray, axis), source.name)


def rgb_to_hsv(images, data_format=None):
    """RGB float ``images`` (values in ``[0, 1]``) as hue, saturation, value planes in
    ``[0, 1]``, as ``keras.ops.image.rgb_to_hsv`` (differentiable almost everywhere).

    Example:
        >>> rgb_to_hsv(np.float32([[[1.0, 0.0, 0.0]]]))[0, 0]
        [0.0, 1.0, 1.0]
    """
    x, axis = _channels("rgb_to_hsv", images, data_format, (3,))
    _float_only("rgb_to_hsv", x)
    eps = float(np.finfo(np.dtype(x.dtype)).eps)
    x = where(less(abs_op(x), eps), 0.0, x)
    red, green, blue = unstack(x, axis=axis)
    value = maximum(maximum(red, green), blue)
    range_ = value - minimum(minimum(red, green), blue)
    positive_value, positive_range = greater(value, 0.0), greater(range_, 0.0)
    saturation = where(positive_value, range_ / where(positive_value, value, 1.0), 0.0)
    norm = 1.0 / (6.0 * where(positive_range, range_, 1.0))
    hue = where(equal(value, green), norm * (blue - red) + 2.0 / 6.0,
                norm * (red - green) + 4.0 / 6.0)
    hue = where(equal(value, red), norm * (green - blue), hue)
    hue = where(positive_range, hue, 0.0) + cast(less(hue, 0.0), np.dtype(x.dtype).name)
    return stack([hue, saturation, value], axis=axis)


def hsv_to_rgb(images, data_format=None):
    """Hue, saturation, value float ``images`` as RGB, as ``keras.ops.image.hsv_to_rgb``
    (differentiable almost everywhere).

    Example:
        >>> hsv_to_rgb(np.float32([[[0.0, 1.0, 1.0]]]))[0, 0]
        [1.0, 0.0, 0.0]
    """
    x, axis = _channels("hsv_to_rgb", images, data_format, (3,))
    _float_only("hsv_to_rgb", x)
    hue, saturation, value = unstack(x, axis=axis)
    dh = mod(hue, 1.0) * 6.0
    planes = (clip(abs_op(dh - 3.0) - 1.0, 0.0, 1.0), clip(2.0 - abs_op(dh - 2.0), 0.0, 1.0),
              clip(2.0 - abs_op(dh - 4.0), 0.0, 1.0))
    one_minus_s = 1.0 - saturation
    return stack([value * (one_minus_s + saturation * d) for d in planes], axis=axis)

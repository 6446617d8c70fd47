"""Image ops with ``keras.ops.image`` names: patch extraction."""

import math

from .conv import conv
from .conversion import convert_to_tensor
from .creation import eye
from .shape import expand_dims, moveaxis, reshape, squeeze


def extract_patches(images, size, strides=None, dilation_rate=1, padding="valid",
                    data_format=None):
    """Patches of ``images`` as ``keras.ops.image.extract_patches``: 2-d patches for an
    int or pair ``size`` (images ``(H, W, C)`` or ``(N, H, W, C)``), 3-d for a triple
    (volumes ``(D, H, W, C)`` or ``(N, D, H, W, C)``); channels first with
    ``data_format="channels_first"``. Each output position holds its patch flattened in
    (rows, columns, channels) order, so the last axis has ``prod(size) * C`` values
    (Keras' convolution with an identity kernel, differentiable).

    Example:
        >>> extract_patches(np.ones((2, 32, 32, 3)), 8).shape
        (2, 4, 4, 192)
    """
    size = (size, size) if isinstance(size, int) else tuple(size)
    if len(size) not in (2, 3):
        raise ValueError(f"extract_patches needs size, an int or a tuple of 2 or 3 ints, "
                         f"got size={size!r}")
    rank = len(size)
    strides = size if strides is None else strides
    if data_format not in (None, "channels_last", "channels_first"):
        raise ValueError(f"extract_patches needs data_format 'channels_last' or "
                         f"'channels_first', got data_format={data_format!r}")
    x = convert_to_tensor(images)
    if x.ndim not in (rank + 1, rank + 2):
        raise ValueError(f"extract_patches with a {rank}-d size needs a rank {rank + 1} or "
                         f"{rank + 2} input, got shape {tuple(x.shape)}")
    unbatched = x.ndim == rank + 1
    if unbatched:
        x = expand_dims(x, 0)
    if data_format == "channels_first":
        x = moveaxis(x, 1, -1)
    out_dim = math.prod(size) * x.shape[-1]
    kernel = reshape(eye(out_dim, dtype=x.dtype), (*size, x.shape[-1], out_dim))
    patches = conv(x, kernel, strides=strides, padding=padding, dilation_rate=dilation_rate)
    if data_format == "channels_first":
        patches = moveaxis(patches, -1, 1)
    return squeeze(patches, 0) if unbatched else patches

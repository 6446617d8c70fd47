"""Image ops with ``keras.ops.image`` names: patch extraction (2-d and 3-d), cropping and
padding, and the layout helpers the other image modules share (``data_format``, one image
or a batch)."""

import math

from .conv import conv
from .conversion import convert_to_tensor
from .creation import eye
from .indexing import slice as slice_op
from .shape import expand_dims, moveaxis, pad, reshape, squeeze

DATA_FORMATS = ("channels_last", "channels_first")


def check_data_format(name, data_format):
    """Keras' ``data_format`` (``None``: ``"channels_last"``), else a ValueError naming
    the op ``name``."""
    if data_format is None:
        return "channels_last"
    if data_format not in DATA_FORMATS:
        raise ValueError(f"{name} needs data_format 'channels_last' or 'channels_first', "
                         f"got data_format={data_format!r}")
    return data_format


def to_batch(name, images, data_format, ranks=(3, 4), argument="images"):
    """``images`` as a channels-last batch Tensor, and the function that restores a
    result of the same layout to the caller's (channels first, unbatched). ``ranks`` are
    the accepted ranks (one image, a batch)."""
    data_format = check_data_format(name, data_format)
    x = convert_to_tensor(images)
    if x.ndim not in ranks:
        raise ValueError(f"{name} needs {argument} of rank {ranks[0]} or {ranks[1]} (one image "
                         f"or a batch), got {argument}.shape={tuple(x.shape)}")
    unbatched = x.ndim == ranks[0]
    if unbatched:
        x = expand_dims(x, 0)
    if data_format == "channels_first":
        x = moveaxis(x, 1, -1)

    def restore(y, channel_axis=-1):
        if data_format == "channels_first":
            y = moveaxis(y, channel_axis, 1)
        return squeeze(y, 0) if unbatched else y

    return x, restore


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
    x, restore = to_batch("extract_patches", images, data_format, (rank + 1, rank + 2))
    out_dim = math.prod(size) * x.shape[-1]
    kernel = reshape(eye(out_dim, dtype=x.dtype), (*size, x.shape[-1], out_dim))
    return restore(conv(x, kernel, strides=strides, padding=padding,
                        dilation_rate=dilation_rate))


def extract_patches_3d(volumes, size, strides=None, dilation_rate=1, padding="valid",
                       data_format=None):
    """3-d patches of ``volumes`` (``(D, H, W, C)`` or ``(N, D, H, W, C)``) as
    ``keras.ops.image.extract_patches_3d``: ``size`` an int or a triple; each output
    position holds ``prod(size) * C`` values (differentiable).

    Example:
        >>> extract_patches_3d(np.ones((1, 4, 4, 4, 2)), 2).shape
        (1, 2, 2, 2, 16)
    """
    size = (size,) * 3 if isinstance(size, int) else tuple(size)
    if len(size) != 3:
        raise ValueError(f"extract_patches_3d needs size, an int or a tuple of 3 ints, "
                         f"got size={size!r}")
    strides = (strides,) * 3 if isinstance(strides, int) else strides
    if strides is not None and len(strides) != 3:
        raise ValueError(f"extract_patches_3d needs strides, an int or a tuple of 3 ints, "
                         f"got strides={strides!r}")
    return extract_patches(volumes, size, strides, dilation_rate, padding, data_format)


def _two_of_three(name, first, second, target, names):
    """Exactly two of ``(first, second, target)`` given (Keras' rule), each >= 0."""
    if [first, second, target].count(None) != 1:
        raise ValueError(f"{name} needs exactly two of {', '.join(names)}, got "
                         f"{names[0]}={first}, {names[1]}={second}, {names[2]}={target}")
    for label, value in zip(names, (first, second, target)):
        if value is not None and value < 0:
            raise ValueError(f"{name} needs {label} >= 0, got {label}={value}")


def _height_width(x):
    return x.shape[1], x.shape[2]


def pad_images(images, top_padding=None, left_padding=None, bottom_padding=None,
               right_padding=None, target_height=None, target_width=None, data_format=None):
    """``images`` padded with zeros as ``keras.ops.image.pad_images``: per side exactly
    two of (top, bottom, target height) and of (left, right, target width)
    (differentiable).

    Example:
        >>> pad_images(np.ones((4, 4, 1)), 1, 2, target_height=6, target_width=7).shape
        (6, 7, 1)
    """
    _two_of_three("pad_images", top_padding, bottom_padding, target_height,
                  ("top_padding", "bottom_padding", "target_height"))
    _two_of_three("pad_images", left_padding, right_padding, target_width,
                  ("left_padding", "right_padding", "target_width"))
    x, restore = to_batch("pad_images", images, data_format)
    height, width = _height_width(x)
    if top_padding is None:
        top_padding = target_height - bottom_padding - height
    if bottom_padding is None:
        bottom_padding = target_height - top_padding - height
    if left_padding is None:
        left_padding = target_width - right_padding - width
    if right_padding is None:
        right_padding = target_width - left_padding - width
    for label, value in (("top_padding", top_padding), ("bottom_padding", bottom_padding),
                         ("left_padding", left_padding), ("right_padding", right_padding)):
        if value < 0:
            raise ValueError(f"pad_images needs {label} >= 0 (the target is smaller than "
                             f"the image), got {label}={value}")
    return restore(pad(x, [(0, 0), (top_padding, bottom_padding),
                           (left_padding, right_padding), (0, 0)]))


def crop_images(images, top_cropping=None, left_cropping=None, bottom_cropping=None,
                right_cropping=None, target_height=None, target_width=None,
                data_format=None):
    """A window of ``images`` as ``keras.ops.image.crop_images``: per side exactly two of
    (top, bottom, target height) and of (left, right, target width) (differentiable).

    Example:
        >>> crop_images(np.ones((6, 7, 1)), 1, 2, target_height=4, target_width=4).shape
        (4, 4, 1)
    """
    _two_of_three("crop_images", top_cropping, bottom_cropping, target_height,
                  ("top_cropping", "bottom_cropping", "target_height"))
    _two_of_three("crop_images", left_cropping, right_cropping, target_width,
                  ("left_cropping", "right_cropping", "target_width"))
    x, restore = to_batch("crop_images", images, data_format)
    height, width = _height_width(x)
    if top_cropping is None:
        top_cropping = height - target_height - bottom_cropping
    if target_height is None:
        target_height = height - bottom_cropping - top_cropping
    if left_cropping is None:
        left_cropping = width - target_width - right_cropping
    if target_width is None:
        target_width = width - right_cropping - left_cropping
    for label, value in (("top_cropping", top_cropping), ("target_height", target_height),
                         ("left_cropping", left_cropping), ("target_width", target_width)):
        if value < 0:
            raise ValueError(f"crop_images needs {label} >= 0 (the crop is larger than the "
                             f"image), got {label}={value}")
    return restore(slice_op(x, [0, top_cropping, left_cropping, 0],
                            [x.shape[0], target_height, target_width, x.shape[-1]]))

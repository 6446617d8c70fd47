"""Image ops with ``keras.ops.image`` names: patch extraction (2-d and 3-d), cropping and
padding, and the layout helpers the other image modules share (``data_format``, one image
or a batch)."""

import math

from .. import state
from .conv import conv
from .conversion import convert_to_tensor
from .creation import eye
from .indexing import slice as slice_op
from .shape import expand_dims, moveaxis, pad, reshape, squeeze

DATA_FORMATS = ("channels_last", "channels_first")


def check_data_format(name, data_format):
    """Keras' ``data_format`` (``None``: ``lamina.config.image_data_format()``), else a
    ValueError naming the op ``name``."""
    if data_format is None:
        return state.image_data_format()
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


def check_choice(name, argument, value, allowed):
    """``value`` if it is one of ``allowed``, else a ValueError naming the op and the
    argument."""
    if value not in allowed:
        raise ValueError(f"{name} needs {argument} in {tuple(allowed)}, got "
                         f"{argument}={value!r}")
    return value


def _side(name, kind, first, second, target, size, grow):
    """Keras' rule for one axis of ``pad_images`` (``grow``) or ``crop_images``: exactly
    two of ``(first, second, target)`` given, each >= 0; returns all three resolved."""
    word = "padding" if grow else "cropping"
    sides = {"height": ("top", "bottom"), "width": ("left", "right")}[kind]
    names = (f"{sides[0]}_{word}", f"{sides[1]}_{word}", f"target_{kind}")
    given = (first, second, target)
    if given.count(None) != 1:
        raise ValueError(f"{name} needs exactly two of {', '.join(names)}, got "
                         + ", ".join(f"{n}={v}" for n, v in zip(names, given)))
    for label, value in zip(names, given):
        if value is not None and value < 0:
            raise ValueError(f"{name} needs {label} >= 0, got {label}={value}")
    if target is not None:
        extra = target - size if grow else size - target
        first, second = (extra - second, second) if first is None else (first, extra - first)
    target = size + first + second if grow else size - first - second
    for label, value in zip(names, (first, second, target)):
        if value < 0:
            raise ValueError(f"{name} needs {label} >= 0 (the {kind} does not fit the "
                             f"image's {size}), got {label}={value}")
    return first, second, target


def pad_images(images, top_padding=None, left_padding=None, bottom_padding=None,
               right_padding=None, target_height=None, target_width=None, data_format=None):
    """``images`` padded with zeros as ``keras.ops.image.pad_images``: per side exactly
    two of (top, bottom, target height) and of (left, right, target width)
    (differentiable).

    Example:
        >>> pad_images(np.ones((4, 4, 1)), 1, 2, target_height=6, target_width=7).shape
        (6, 7, 1)
    """
    x, restore = to_batch("pad_images", images, data_format)
    top, bottom, _ = _side("pad_images", "height", top_padding, bottom_padding,
                           target_height, x.shape[1], grow=True)
    left, right, _ = _side("pad_images", "width", left_padding, right_padding, target_width,
                           x.shape[2], grow=True)
    return restore(pad(x, [(0, 0), (top, bottom), (left, right), (0, 0)]))


def crop_images(images, top_cropping=None, left_cropping=None, bottom_cropping=None,
                right_cropping=None, target_height=None, target_width=None,
                data_format=None):
    """A window of ``images`` as ``keras.ops.image.crop_images``: per side exactly two of
    (top, bottom, target height) and of (left, right, target width) (differentiable).

    Example:
        >>> crop_images(np.ones((6, 7, 1)), 1, 2, target_height=4, target_width=4).shape
        (4, 4, 1)
    """
    x, restore = to_batch("crop_images", images, data_format)
    top, _, height = _side("crop_images", "height", top_cropping, bottom_cropping,
                           target_height, x.shape[1], grow=False)
    left, _, width = _side("crop_images", "width", left_cropping, right_cropping,
                           target_width, x.shape[2], grow=False)
    return restore(slice_op(x, [0, top, left, 0], [x.shape[0], height, width, x.shape[-1]]))

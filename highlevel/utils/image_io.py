"""Image files as in ``keras.utils``: ``load_img``, ``img_to_array``, ``array_to_img``,
``save_img``, through Pillow (the optional extra ``lamina[image]``)."""

import io
import pathlib
import warnings

import numpy as np

from ...backends import state

COLOR_MODES = {"grayscale": 1, "rgb": 3, "rgba": 4}
PIL_INTERPOLATIONS = ("nearest", "bilinear", "bicubic", "hamming", "box", "lanczos")


def pil_image():
    """Pillow's ``PIL.Image`` module; an ``ImportError`` naming the extra when Pillow is
    missing."""
    try:
        from PIL import Image
    except ImportError as error:
        raise ImportError("lamina's image utilities (load_img, save_img, "
                          "image_dataset_from_directory, ...) need Pillow: "
                          "pip install 'lamina[image]' (or pip install pillow)") from error
    return Image


def data_format_of(data_format):
    """``data_format`` checked: ``None`` means ``lamina.config.image_data_format()``."""
    return state.standardize_data_format(data_format)


def load_img(path, color_mode="rgb", target_size=None, interpolation="nearest",
             keep_aspect_ratio=False):
    """Load an image file as a PIL image, as ``keras.utils.load_img``.

    Args:
        path: a path (``str``, ``bytes``, ``pathlib.Path``) or an ``io.BytesIO``.
        color_mode: ``"grayscale"`` (8-bit unless the file is 16/32-bit grayscale),
            ``"rgb"`` or ``"rgba"``.
        target_size: ``None`` (the file's size) or ``(height, width)``.
        interpolation: Pillow's resampling for ``target_size``: ``"nearest"`` (default),
            ``"bilinear"``, ``"bicubic"``, ``"hamming"``, ``"box"``, ``"lanczos"``.
        keep_aspect_ratio: resize the largest centered crop with the target's aspect ratio
            instead of distorting the image.

    Returns:
        A ``PIL.Image.Image``.
    """
    image_module = pil_image()
    if color_mode not in COLOR_MODES:
        raise ValueError(f"load_img needs color_mode 'grayscale', 'rgb' or 'rgba', got "
                         f"{color_mode!r}")
    if isinstance(path, io.BytesIO):
        image = image_module.open(path)
    elif isinstance(path, (pathlib.Path, bytes, str)):
        with open(path, "rb") as file:
            image = image_module.open(io.BytesIO(file.read()))
    else:
        raise TypeError(f"load_img needs a path or an io.BytesIO, got {type(path).__name__}")
    wanted = {"grayscale": ("L", "I;16", "I"), "rgb": ("RGB",), "rgba": ("RGBA",)}[color_mode]
    if image.mode not in wanted:
        image = image.convert(wanted[0])
    if target_size is None:
        return image
    size = (int(target_size[1]), int(target_size[0]))   # PIL sizes are (width, height)
    if image.size == size:
        return image
    if interpolation not in PIL_INTERPOLATIONS:
        raise ValueError(f"load_img needs interpolation one of {PIL_INTERPOLATIONS}, got "
                         f"{interpolation!r}")
    resample = getattr(image_module.Resampling, interpolation.upper())
    if not keep_aspect_ratio:
        return image.resize(size, resample)
    width, height = image.size
    crop_height = min(height, (width * size[1]) // size[0])
    crop_width = min(width, (height * size[0]) // size[1])
    top, left = (height - crop_height) // 2, (width - crop_width) // 2
    return image.resize(size, resample, box=[left, top, left + crop_width, top + crop_height])


def img_to_array(img, data_format=None, dtype=None):
    """A PIL image as a 3-D NumPy array ``(height, width, channels)`` (channels first with
    ``data_format="channels_first"``) of ``dtype`` (default ``floatx``), as
    ``keras.utils.img_to_array``."""
    data_format = data_format_of(data_format)
    array = np.asarray(img, dtype=dtype or state.floatx())
    if array.ndim == 2:
        array = array[:, :, None]
    elif array.ndim != 3:
        raise ValueError(f"img_to_array: unsupported image shape {array.shape}")
    return array.transpose(2, 0, 1) if data_format == "channels_first" else array


def array_to_img(x, data_format=None, scale=True, dtype=None):
    """A 3-D array (``(height, width, channels)``, or channels first) as a PIL image, as
    ``keras.utils.array_to_img``: 1 channel -> ``"L"`` (``"I"`` when above 255 after
    scaling), 3 -> ``"RGB"``, 4 -> ``"RGBA"``; ``scale=True`` maps min..max to 0..255."""
    image_module = pil_image()
    data_format = data_format_of(data_format)
    x = np.array(x, dtype=dtype or state.floatx())
    if x.ndim != 3:
        raise ValueError(f"array_to_img expects an image array of rank 3 (one image), got "
                         f"shape {x.shape}")
    if data_format == "channels_first":
        x = x.transpose(1, 2, 0)
    if scale:
        x = x - np.min(x)
        top = np.max(x)
        if top != 0:
            x /= top
        x *= 255
    channels = x.shape[2]
    if channels in (3, 4):
        return image_module.fromarray(x.astype("uint8"), "RGB" if channels == 3 else "RGBA")
    if channels == 1:
        if np.max(x) > 255:
            return image_module.fromarray(x[:, :, 0].astype("int32"), "I")
        return image_module.fromarray(x[:, :, 0].astype("uint8"), "L")
    raise ValueError(f"array_to_img: unsupported number of channels {channels} (1, 3 or 4)")


def save_img(path, x, data_format=None, file_format=None, scale=True, **kwargs):
    """Save an image array to ``path`` (or a file object, then with ``file_format``), as
    ``keras.utils.save_img``; the format follows the file extension unless
    ``file_format`` is given; ``kwargs`` go to ``PIL.Image.save``. An RGBA image saved as
    JPEG is converted to RGB with a warning."""
    if file_format is not None and file_format.lower() == "jpg":
        file_format = "jpeg"
    image = array_to_img(x, data_format=data_format, scale=scale)
    if image.mode == "RGBA" and file_format == "jpeg":
        warnings.warn("The JPEG format does not support RGBA images, converting to RGB.",
                      stacklevel=2)
        image = image.convert("RGB")
    image.save(path, format=file_format, **kwargs)

"""``smart_resize`` as ``keras.preprocessing.image.smart_resize``: an image (or a batch)
resized to a target size without distorting its aspect ratio (the largest centered crop of
the target's aspect ratio, then a resize)."""

import numpy as np

from ...backends.autodiff import Tensor
from ...backends.ops.conversion import convert_to_numpy
from ...backends.ops.image_resize import RESIZE_INTERPOLATIONS, resize

DATA_FORMATS = ("channels_last", "channels_first")


def smart_resize(x, size, interpolation="bilinear", data_format="channels_last"):
    """Resize images to ``size`` without aspect ratio distortion, as Keras.

    The largest centered crop of ``x`` with the aspect ratio of ``size`` is taken (for
    ``size=(200, 200)`` and a ``(340, 500)`` image, a ``(340, 340)`` crop centered along the
    width), then resized to ``size`` (``ops.image.resize`` with
    ``crop_to_aspect_ratio=True``).

    Args:
        x: an image ``(height, width, channels)`` or a batch ``(batch, height, width,
            channels)`` (channels first with ``data_format="channels_first"``), as a NumPy
            array or a lamina Tensor.
        size: ``(height, width)``, the target size.
        interpolation: ``"bilinear"`` (default), ``"nearest"``, ``"bicubic"``, ``"area"``,
            ``"lanczos3"`` or ``"lanczos5"``.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.

    Returns:
        The resized images with ``x``'s dtype (integer images rounded and clipped), a NumPy
        array for a NumPy input, a Tensor for a Tensor.
    """
    if len(size) != 2:
        raise ValueError(f"Expected `size` to be a tuple of 2 integers, but got: {size}.")
    if interpolation not in RESIZE_INTERPOLATIONS:
        raise ValueError(f"smart_resize: interpolation must be one of "
                         f"{RESIZE_INTERPOLATIONS}, got {interpolation!r}")
    if data_format not in DATA_FORMATS:
        raise ValueError(f"smart_resize: data_format must be one of {DATA_FORMATS}, got "
                         f"{data_format!r}")
    shape = tuple(x.shape) if isinstance(x, Tensor) else np.shape(x)
    if len(shape) not in (3, 4):
        raise ValueError("Expected an image array with shape `(height, width, channels)`, "
                         "or `(batch_size, height, width, channels)`, but got input with "
                         f"incorrect rank, of shape {shape}.")
    resized = resize(x, (int(size[0]), int(size[1])), interpolation=interpolation,
                     crop_to_aspect_ratio=True, data_format=data_format)
    return resized if isinstance(x, Tensor) else convert_to_numpy(resized)

"""``smart_resize`` as ``keras.preprocessing.image.smart_resize``: an image (or a batch)
resized to a target size without distorting its aspect ratio (the largest centered crop of
the target's aspect ratio, then a resize)."""

import numpy as np

from ...backends.autodiff import Tensor, as_engine_array
from ...layers.preprocessing.image_ops import RESIZE_INTERPOLATIONS
from ...layers.preprocessing.image_resizing import smart_resize as resize_batch

DATA_FORMATS = ("channels_last", "channels_first")


def smart_resize(x, size, interpolation="bilinear", data_format="channels_last"):
    """Resize images to ``size`` without aspect ratio distortion, as Keras.

    The largest centered crop of ``x`` with the aspect ratio of ``size`` is taken (for
    ``size=(200, 200)`` and a ``(340, 500)`` image, a ``(340, 340)`` crop centered along the
    width), then resized to ``size`` (TensorFlow's resize kernels, as ``ops.image.resize``).

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
    images = x.numpy() if isinstance(x, Tensor) else np.asarray(x)
    if images.ndim not in (3, 4):
        raise ValueError("Expected an image array with shape `(height, width, channels)`, "
                         "or `(batch_size, height, width, channels)`, but got input with "
                         f"incorrect rank, of shape {images.shape}.")
    batch = images if images.ndim == 4 else images[None]
    if data_format == "channels_first":
        batch = batch.transpose(0, 2, 3, 1)
    dtype = batch.dtype
    if dtype.kind != "f":
        batch = batch.astype(np.float32)
    resized = resize_batch(batch, int(size[0]), int(size[1]), interpolation)
    if dtype.kind in "iu":
        limits = np.iinfo(dtype)
        resized = np.clip(np.round(resized), limits.min, limits.max)
    resized = resized.astype(dtype)
    if data_format == "channels_first":
        resized = resized.transpose(0, 3, 1, 2)
    resized = resized if images.ndim == 4 else resized[0]
    return Tensor(as_engine_array(resized)) if isinstance(x, Tensor) else resized

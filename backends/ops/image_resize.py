"""``keras.ops.image.resize`` and ``scale_and_translate``: each spatial axis is resized by
one ``(out, in)`` weight matrix built on the host from the sizes alone, so the op is a
chain of differentiable tensor contractions (``nearest``: a gather). The kernels are
TensorFlow's (``tf.image.resize``, which Keras' TensorFlow backend calls): half-pixel
centers, ``area`` as ``resize_area``, bicubic from TensorFlow's 1024-entry coefficient
table, lanczos and antialiased filters as ``scale_and_translate`` (the same numbers as
Keras' NumPy/JAX backends, whose bicubic differs by the table's quantization, < 1e-3 of
the value range)."""

import numpy as np

from .conversion import cast, convert_to_numpy, convert_to_tensor, saturate_cast
from .elementwise import round as round_op
from .image import check_choice, to_batch
from .products import tensordot
from .shape import getitem, moveaxis, pad, take

RESIZE_INTERPOLATIONS = ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5")
SCALE_AND_TRANSLATE_METHODS = ("linear", "bilinear", "trilinear", "triangle", "cubic",
                               "bicubic", "tricubic", "lanczos3", "lanczos5")

_CUBIC_A = -0.5          # Keys' cubic (TensorFlow's half-pixel bicubic)
_TABLE_SIZE = 1024       # TensorFlow samples its bicubic coefficients from a 1024-entry table


def _lanczos(radius):
    def kernel(x):
        with np.errstate(divide="ignore", invalid="ignore"):
            value = radius * np.sin(np.pi * x) * np.sin(np.pi * x / radius) / (np.pi * x) ** 2
        return np.where(x > radius, 0.0, np.where(x <= 1e-3, 1.0, value))
    return kernel


def _triangle(x):
    return np.maximum(0.0, 1.0 - np.abs(x))


def _keys_cubic(x):
    x = np.abs(x)
    a = _CUBIC_A
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.where(x < 1, near, np.where(x < 2, far, 0.0))


_KERNELS = {"linear": _triangle, "cubic": _keys_cubic, "lanczos3": _lanczos(3),
            "lanczos5": _lanczos(5)}


def _kernel_name(method):
    if method in ("linear", "bilinear", "trilinear", "triangle"):
        return "linear"
    return "cubic" if method in ("cubic", "bicubic", "tricubic") else method


def scale_translate_weights(in_size, out_size, scale, translation, method, antialias):
    """The ``(out_size, in_size)`` matrix of ``scale_and_translate`` along one axis
    (output sample ``i`` reads input position ``(i + 0.5 - translation) / scale - 0.5``;
    kernels widened by ``1 / scale`` when downsampling with ``antialias``)."""
    kernel = _KERNELS[_kernel_name(method)]
    inv_scale = 1.0 / scale
    kernel_scale = max(inv_scale, 1.0) if antialias else 1.0
    sample = (np.arange(out_size) + 0.5) * inv_scale - translation * inv_scale - 0.5
    weights = kernel(np.abs(sample[:, None] - np.arange(in_size)[None, :]) / kernel_scale)
    total = weights.sum(axis=1, keepdims=True)
    weights = np.where(np.abs(total) > 1000 * np.finfo(np.float32).eps,
                       weights / np.where(total != 0, total, 1), 0.0)
    inside = (sample >= -0.5) & (sample <= in_size - 0.5)
    return np.where(inside[:, None], weights, 0.0)


def resize_weights(in_size, out_size, interpolation, antialias):
    """The ``(out_size, in_size)`` matrix of one axis of :func:`resize` (not nearest)."""
    scale = out_size / in_size
    if interpolation.startswith("lanczos") or (
            antialias and interpolation in ("bilinear", "bicubic")):
        return scale_translate_weights(in_size, out_size, scale, 0.0, interpolation,
                                       antialias)
    if interpolation == "bilinear":
        return scale_translate_weights(in_size, out_size, scale, 0.0, "linear", False)
    weights = np.zeros((out_size, in_size))
    rows = np.arange(out_size)
    step = in_size / out_size
    if interpolation == "area":
        start, end = rows * step, (rows + 1) * step
        for offset in range(int(np.ceil(step)) + 1):   # the (few) sources each output covers
            source = np.floor(start) + offset
            cover = np.minimum(source + 1, end) - np.maximum(source, start)
            keep = (cover > 0) & (source < np.ceil(end))
            np.add.at(weights, (rows[keep], np.minimum(source[keep], in_size - 1).astype(int)),
                      cover[keep] / step)
        return weights
    # bicubic: Keys' kernel at the table's quantized offsets; taps outside the image get no
    # weight and the rest are renormalized (TensorFlow's half-pixel bicubic)
    position = (rows + 0.5) * step - 0.5
    floor = np.floor(position)
    delta = np.rint((position - floor) * _TABLE_SIZE) / _TABLE_SIZE
    for tap, distance in zip(range(-1, 3), (1 + delta, delta, 1 - delta, 2 - delta)):
        source = floor + tap
        inside = (source >= 0) & (source < in_size)
        np.add.at(weights, (rows[inside], source[inside].astype(int)),
                  _keys_cubic(distance[inside]))
    return weights / weights.sum(axis=1, keepdims=True)


def nearest_indices(in_size, out_size):
    """The source index of each output of a nearest resize (half-pixel centers)."""
    position = (np.arange(out_size, dtype=np.float32) + np.float32(0.5)) * (
        np.float32(in_size) / np.float32(out_size))
    return np.minimum(np.floor(position).astype(np.int64), in_size - 1)


def _apply_axis(x, axis, weights):
    """``x`` contracted with ``weights`` (out, in) along ``axis``."""
    w = convert_to_tensor(weights.astype(np.dtype(x.dtype)))
    return moveaxis(tensordot(w, x, axes=([1], [axis])), 0, axis)


def aspect_crop_box(height, width, target_height, target_width):
    """``(top, left, crop_height, crop_width)``: the largest centered window with the
    target's aspect ratio (Keras' ``crop_to_aspect_ratio`` and ``smart_resize``)."""
    crop_height = max(min(height, int(float(width * target_height) / target_width)), 1)
    crop_width = max(min(width, int(float(height * target_width) / target_height)), 1)
    return (int(float(height - crop_height) / 2), int(float(width - crop_width) / 2),
            crop_height, crop_width)


def _aspect_padding(height, width, target_height, target_width):
    """Keras' ``pad_to_aspect_ratio`` rows (or columns) added on each side."""
    top = int(float(max(height, int(float(width * target_height) / target_width)) - height)
              / 2)
    left = int(float(max(width, int(float(height * target_width) / target_height)) - width)
               / 2)
    return (top, 0) if top > 0 else (0, left)


def resize(images, size, interpolation="bilinear", antialias=False, crop_to_aspect_ratio=False,
           pad_to_aspect_ratio=False, fill_mode="constant", fill_value=0.0, data_format=None):
    """``images`` (``(H, W, C)`` or ``(N, H, W, C)``; channels first with
    ``data_format="channels_first"``) resized to ``size = (height, width)`` as
    ``keras.ops.image.resize``.

    Args:
        interpolation: ``"bilinear"``, ``"nearest"``, ``"bicubic"``, ``"area"``,
            ``"lanczos3"`` or ``"lanczos5"``.
        antialias: widen the filter when downsampling (bilinear, bicubic, lanczos).
        crop_to_aspect_ratio: first crop the largest centered window of the target's
            aspect ratio.
        pad_to_aspect_ratio: first pad symmetrically with ``fill_value`` to the target's
            aspect ratio (``fill_mode`` must be ``"constant"``).

    Float images are differentiable; integer ones come back rounded and saturated in
    their dtype.

    Example:
        >>> resize(np.arange(16.0).reshape(4, 4, 1), (2, 2))[:, :, 0]
        [[2.5, 4.5], [10.5, 12.5]]
    """
    if len(size) != 2 or size[0] <= 0 or size[1] <= 0:
        raise ValueError(f"resize needs size, a tuple (height, width) of 2 positive ints, "
                         f"got size={size!r}")
    check_choice("resize", "interpolation", interpolation, RESIZE_INTERPOLATIONS)
    if fill_mode != "constant":
        raise ValueError(f"resize supports only fill_mode 'constant', got "
                         f"fill_mode={fill_mode!r}")
    if pad_to_aspect_ratio and crop_to_aspect_ratio:
        raise ValueError("resize takes only one of pad_to_aspect_ratio and "
                         "crop_to_aspect_ratio, got both True")
    x, restore = to_batch("resize", images, data_format)
    source_dtype = np.dtype(x.dtype)
    height, width = int(size[0]), int(size[1])
    if crop_to_aspect_ratio:
        top, left, crop_height, crop_width = aspect_crop_box(x.shape[1], x.shape[2], height,
                                                             width)
        x = getitem(x, (slice(None), slice(top, top + crop_height),
                        slice(left, left + crop_width)))
    elif pad_to_aspect_ratio:
        top, left = _aspect_padding(x.shape[1], x.shape[2], height, width)
        x = pad(x, [(0, 0), (top, top), (left, left), (0, 0)], constant_values=fill_value)
    if interpolation == "nearest":
        for axis, out_size in ((1, height), (2, width)):
            if x.shape[axis] != out_size:
                x = take(x, nearest_indices(x.shape[axis], out_size), axis=axis)
        return restore(x)
    if source_dtype.kind != "f":
        x = cast(x, "float32")
    for axis, out_size in ((1, height), (2, width)):
        if x.shape[axis] != out_size:
            x = _apply_axis(x, axis, resize_weights(x.shape[axis], out_size, interpolation,
                                                    antialias))
    if source_dtype.kind != "f":
        x = saturate_cast(round_op(x), source_dtype.name)
    return restore(x)


def scale_and_translate(images, output_shape, scale, translation, spatial_dims, method,
                        antialias=True):
    """``images`` resampled to ``output_shape`` as ``keras.ops.image.scale_and_translate``
    (``jax.image.scale_and_translate``): along each of ``spatial_dims`` output sample
    ``i`` reads input position ``(i + 0.5 - translation) / scale - 0.5`` through the
    ``method`` kernel (``"linear"``, ``"cubic"``, ``"lanczos3"``, ``"lanczos5"`` and their
    aliases), widened by ``1 / scale`` when downsampling with ``antialias``
    (differentiable for float images).

    Example:
        >>> scale_and_translate(np.arange(9.0).reshape(3, 3), (5, 5), [2.0, 2.0],
        ...                     [-0.5, -0.5], (0, 1), "linear")[0]
        [0.0, 0.5, 1.0, 1.5, 2.0]
    """
    check_choice("scale_and_translate", "method", method, SCALE_AND_TRANSLATE_METHODS)
    x = convert_to_tensor(images)
    scale = np.asarray(convert_to_numpy(scale), dtype=float).reshape(-1)
    translation = np.asarray(convert_to_numpy(translation), dtype=float).reshape(-1)
    spatial_dims = tuple(spatial_dims)
    if scale.shape != (len(spatial_dims),) or translation.shape != scale.shape or \
            len(output_shape) != x.ndim:
        raise ValueError(f"scale_and_translate needs one scale and translation per spatial "
                         f"dim and output_shape of rank {x.ndim}, got scale {scale.shape}, "
                         f"translation {translation.shape}, spatial_dims {spatial_dims}, "
                         f"output_shape {tuple(output_shape)}")
    source_dtype = np.dtype(x.dtype)
    if source_dtype.kind != "f":
        x = cast(x, "float32")
    for axis, s, t in zip(spatial_dims, scale, translation):
        axis = axis % x.ndim
        x = _apply_axis(x, axis, scale_translate_weights(x.shape[axis], output_shape[axis],
                                                         s, t, method, antialias))
    if source_dtype.kind != "f":
        x = saturate_cast(round_op(x), source_dtype.name)
    return x

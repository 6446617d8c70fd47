"""The image arithmetic of the image preprocessing layers, on NumPy batches of shape
``(batch, height, width, channels)``: TensorFlow's resize kernels (the ones Keras'
``ops.image.resize`` calls on its TensorFlow backend) as per-axis weight matrices, Keras'
crop-to-aspect-ratio box, and TensorFlow's ``ImageProjectiveTransformV3`` (Keras'
``ops.image.affine_transform``) with its fill modes."""

import numpy as np

RESIZE_INTERPOLATIONS = ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5")
AFFINE_INTERPOLATIONS = ("nearest", "bilinear")
FILL_MODES = ("reflect", "wrap", "constant", "nearest")

_CUBIC_A = -0.5          # Keys' cubic (TensorFlow's half-pixel bicubic)
_TABLE_SIZE = 1024       # TensorFlow samples its bicubic coefficients from a 1024-entry table


# ------------------------------------------------------------------ resizing
def resize(images, size, interpolation="bilinear", antialias=False):
    """``images`` (NHWC) resized to ``size = (height, width)`` as ``tf.image.resize``
    (half-pixel centers; ``area`` as ``resize_area``; lanczos, and antialiased bilinear /
    bicubic, as ``scale_and_translate``). Float output except for ``nearest``."""
    for axis, out_size in ((1, size[0]), (2, size[1])):
        in_size = images.shape[axis]
        if interpolation == "nearest":
            images = np.take(images, _nearest_indices(in_size, out_size), axis=axis)
        else:
            weights = _resize_weights(in_size, out_size, interpolation, antialias)
            images = np.moveaxis(np.tensordot(weights.astype(images.dtype), images,
                                              axes=([1], [axis])), 0, axis)
    return images


def _nearest_indices(in_size, out_size):
    scale = np.float32(in_size) / np.float32(out_size)
    position = (np.arange(out_size, dtype=np.float32) + np.float32(0.5)) * scale
    return np.clip(np.floor(position).astype(np.int64), 0, in_size - 1)


def _resize_weights(in_size, out_size, interpolation, antialias):
    """The ``(out_size, in_size)`` matrix of one axis' resize."""
    if interpolation.startswith("lanczos"):
        return _scale_and_translate(in_size, out_size, int(interpolation[-1]), _lanczos,
                                    antialias)
    if antialias and interpolation == "bilinear":
        return _scale_and_translate(in_size, out_size, 1, _triangle, True)
    if antialias and interpolation == "bicubic":
        return _scale_and_translate(in_size, out_size, 2, _keys_cubic, True)
    weights = np.zeros((out_size, in_size))
    rows = np.arange(out_size)
    scale = in_size / out_size
    if interpolation == "area":
        start, end = rows * scale, (rows + 1) * scale
        for offset in range(int(np.ceil(scale)) + 1):   # the (few) sources each output covers
            source = np.floor(start) + offset
            cover = np.minimum(source + 1, end) - np.maximum(source, start)
            keep = (cover > 0) & (source < np.ceil(end))
            np.add.at(weights, (rows[keep], np.minimum(source[keep], in_size - 1).astype(int)),
                      cover[keep] / scale)
        return weights
    position = (rows + 0.5) * scale - 0.5
    floor = np.floor(position)
    if interpolation == "bilinear":
        lerp = position - floor
        np.add.at(weights, (rows, np.maximum(floor, 0).astype(int)), 1.0 - lerp)
        np.add.at(weights, (rows, np.minimum(np.ceil(position), in_size - 1).astype(int)), lerp)
        return weights
    # bicubic: Keys' kernel at the table's quantized offsets; taps outside the image get no
    # weight and the rest are renormalized (TensorFlow's half-pixel bicubic)
    delta = np.rint((position - floor) * _TABLE_SIZE) / _TABLE_SIZE
    for tap, distance in zip(range(-1, 3), (1 + delta, delta, 1 - delta, 2 - delta)):
        source = floor + tap
        inside = (source >= 0) & (source < in_size)
        np.add.at(weights, (rows[inside], source[inside].astype(int)),
                  _keys_cubic(distance[inside]))
    return weights / weights.sum(axis=1, keepdims=True)


def _scale_and_translate(in_size, out_size, radius, kernel, antialias):
    """TensorFlow's ``scale_and_translate`` weights (scale ``out/in``, no translation)."""
    inv_scale = in_size / out_size
    kernel_scale = max(inv_scale, 1.0) if antialias else 1.0
    sample = (np.arange(out_size) + 0.5) * inv_scale
    start = np.clip(np.ceil(sample - radius * kernel_scale - 0.5), 0, in_size - 1)
    end = np.clip(np.floor(sample + radius * kernel_scale - 0.5), 0, in_size - 1) + 1
    source = np.arange(in_size)
    inside = (source >= start[:, None]) & (source < end[:, None])
    weights = np.where(inside, kernel(np.abs((source + 0.5 - sample[:, None]) / kernel_scale),
                                      radius), 0.0)
    total = weights.sum(axis=1, keepdims=True)
    return weights / np.where(total == 0, 1.0, total)


def _lanczos(x, radius):
    with np.errstate(divide="ignore", invalid="ignore"):
        value = radius * np.sin(np.pi * x) * np.sin(np.pi * x / radius) / (np.pi ** 2 * x * x)
    return np.where(x > radius, 0.0, np.where(x <= 1e-3, 1.0, value))


def _triangle(x, radius=1):
    return np.maximum(0.0, 1.0 - x)


def _keys_cubic(x, radius=2):
    x = np.abs(x)
    a = _CUBIC_A
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.where(x < 1, near, np.where(x < 2, far, 0.0))


def aspect_crop_box(height, width, target_height, target_width):
    """``(top, left, crop_height, crop_width)``: the centered crop of Keras'
    ``crop_to_aspect_ratio`` (and ``smart_resize``) giving the target's aspect ratio."""
    crop_height = max(min(height, int(float(width * target_height) / target_width)), 1)
    crop_width = max(min(width, int(float(height * target_width) / target_height)), 1)
    return (int(float(height - crop_height) / 2), int(float(width - crop_width) / 2),
            crop_height, crop_width)


def pad_to_aspect(images, target_height, target_width, fill_value):
    """``images`` padded symmetrically with ``fill_value`` toward the target's aspect ratio
    (Keras' ``pad_to_aspect_ratio``)."""
    height, width = images.shape[1:3]
    top = int(float(max(height, int(float(width * target_height) / target_width)) - height)
              / 2)
    left = int(float(max(width, int(float(height * target_width) / target_height)) - width)
               / 2)
    return np.pad(images, ((0, 0), (top, top), (left, left), (0, 0)),
                  constant_values=fill_value)


# ------------------------------------------------------------------ affine transforms
def affine_transform(images, transforms, interpolation="bilinear", fill_mode="constant",
                     fill_value=0.0):
    """TensorFlow's ``ImageProjectiveTransformV3`` on NHWC ``images``: output pixel
    ``(y, x)`` of image ``b`` samples the input at ``((a0 x + a1 y + a2) / k,
    (b0 x + b1 y + b2) / k)``, ``k = c0 x + c1 y + 1``, from ``transforms[b] =
    [a0, a1, a2, b0, b1, b2, c0, c1]`` (float32, as TensorFlow computes)."""
    batch, height, width, _ = images.shape
    t = np.asarray(transforms, dtype=np.float32).reshape(-1, 8)[:, :, None, None]
    y, x = np.meshgrid(np.arange(height, dtype=np.float32), np.arange(width, dtype=np.float32),
                       indexing="ij")
    k = t[:, 6] * x + t[:, 7] * y + np.float32(1)
    with np.errstate(divide="ignore", invalid="ignore"):
        in_x = _map_coordinate((t[:, 0] * x + t[:, 1] * y + t[:, 2]) / k, width, fill_mode)
        in_y = _map_coordinate((t[:, 3] * x + t[:, 4] * y + t[:, 5]) / k, height, fill_mode)
    fill = np.asarray(fill_value, dtype=images.dtype)
    rows = np.arange(batch)[:, None, None]

    def read(yi, xi):
        inside = (yi >= 0) & (yi < height) & (xi >= 0) & (xi < width) & (k != 0)
        values = images[rows, np.clip(yi, 0, height - 1), np.clip(xi, 0, width - 1)]
        return np.where(inside[..., None], values, fill)

    if interpolation == "nearest":
        return read(_round_half_away(in_y), _round_half_away(in_x))
    y0, x0 = np.floor(in_y), np.floor(in_x)
    wy, wx = (in_y - y0)[..., None], (in_x - x0)[..., None]
    y0, x0 = _as_index(y0), _as_index(x0)
    top = (1 - wx) * read(y0, x0) + wx * read(y0, x0 + 1)
    bottom = (1 - wx) * read(y0 + 1, x0) + wx * read(y0 + 1, x0 + 1)
    return ((1 - wy) * top + wy * bottom).astype(images.dtype)


def _map_coordinate(position, size, fill_mode):
    """TensorFlow's ``MapCoordinate``: out-of-image sample positions moved inside."""
    if fill_mode == "constant":
        return position
    if size <= 1:
        return np.zeros_like(position)
    if fill_mode == "reflect":
        double = np.float32(2 * size)
        low = np.where(position < -double,
                       double * np.trunc(-position / double) + position, position)
        low = np.where(low < -size, low + double, -low - 1)
        high = position - double * np.trunc(position / double)
        high = np.where(high >= size, double - high - 1, high)
        position = np.where(position < 0, low, np.where(position > size - 1, high, position))
    elif fill_mode == "wrap":
        span = np.float32(size - 1)
        low = position + size * (np.trunc(-position / span) + 1)
        high = position - size * np.trunc(position / span)
        position = np.where(position < 0, low, np.where(position > size - 1, high, position))
    return np.clip(position, 0, size - 1)


def _round_half_away(value):
    return _as_index(np.sign(value) * np.floor(np.abs(value) + 0.5))


def _as_index(value):
    """Float positions as int64 indices (non-finite ones fall outside every image)."""
    return np.where(np.isfinite(value), np.clip(value, -2**31, 2**31), -1).astype(np.int64)


def rotation_zoom_matrix(angle, zoom_x, zoom_y, shift_x, shift_y, height, width):
    """Keras' batch of 8-parameter transforms about the image center for rotation
    ``angle`` (radians) — or the zoom ``(zoom_x, zoom_y)`` — then the shift (float32)."""
    angle = np.asarray(angle, dtype=np.float32)
    cos, sin = np.cos(angle), np.sin(angle)
    cx, cy = np.float32((width - 1) / 2), np.float32((height - 1) / 2)
    a0, a1 = zoom_x * cos, -zoom_x * sin
    b0, b1 = zoom_y * sin, zoom_y * cos
    zeros = np.zeros_like(a0)
    return np.stack([a0, a1, shift_x + cx - cx * a0 - cy * a1, b0, b1,
                     shift_y + cy - cx * b0 - cy * b1, zeros, zeros], axis=1).astype(np.float32)

"""Resampling ops with ``keras.ops.image`` names: ``map_coordinates``,
``affine_transform``, ``perspective_transform`` and ``elastic_transform``. One sampler
reads the input at fractional positions (nearest or linear, the taps outside the input
resolved by the fill mode) as gathers and weighted sums of differentiable ops, so every
op is differentiable in its input image (not in the positions)."""

import itertools
import math

import numpy as np

from ..random import normal
from .conversion import cast, convert_to_numpy, convert_to_tensor, saturate_cast
from .core import xp
from .image import check_choice, to_batch
from .image_filters import gaussian_blur
from .logic import where
from .shape import reshape, take

MAP_COORDINATES_FILL_MODES = ("constant", "nearest", "wrap", "mirror", "reflect")
AFFINE_INTERPOLATIONS = {"nearest": 0, "bilinear": 1}   # interpolation -> spline order


def _tap(index, size, fill_mode):
    """Integer tap positions moved inside ``[0, size)`` by ``fill_mode`` (scipy's names:
    ``reflect`` repeats the edge, ``mirror`` does not), and whether each is a real tap
    (only ``constant`` has taps outside, read as the fill value)."""
    if fill_mode == "constant":
        return xp().clip(index, 0, size - 1), (index >= 0) & (index < size)
    if fill_mode == "nearest" or size == 1:
        return xp().clip(index, 0, size - 1), None
    if fill_mode == "wrap":
        return xp().mod(index, size), None
    if fill_mode == "reflect":
        folded = xp().mod(index, 2 * size)
        return xp().where(folded < size, folded, 2 * size - 1 - folded), None
    folded = xp().mod(index, 2 * size - 2)
    return xp().where(folded < size, folded, 2 * size - 2 - folded), None


def sample(table, sizes, positions, order, fill_mode, fill_value, base=0):
    """``table`` (a Tensor ``(rows, *rest)`` holding a grid of ``sizes`` row-major from
    flat row ``base``) read at the float ``positions`` (one engine array per axis of
    ``sizes``, all of one shape ``Q``): ``order`` 0 reads the floor of each position (pass
    rounded positions), 1 interpolates linearly between the ``2 ** len(sizes)`` taps.
    Non-finite positions read ``fill_value``. Returns a Tensor ``Q + rest`` in the
    table's dtype: an integer table interpolates in float32 and is rounded back (halves
    away from zero) and saturated, as Keras' NumPy backend (scipy) does."""
    source = dtype = np.dtype(table.dtype)
    integer = order and dtype.kind != "f"
    if integer:
        table, dtype = cast(table, "float32"), np.dtype("float32")
    finite = None
    floors, fractions = [], []
    for position in positions:
        ok = xp().isfinite(position)
        finite = ok if finite is None else finite & ok
        position = xp().where(ok, position, 0)
        floor = xp().floor(position)
        floors.append(floor.astype(np.int64))
        fractions.append((position - floor).astype(dtype))
    strides = [math.prod(sizes[axis + 1:]) for axis in range(len(sizes))]
    trailing = (1,) * (len(table.shape) - 1)
    total = None
    for corner in itertools.product(*[range(order + 1)] * len(sizes)):
        flat, valid, weight = base, finite, None
        for axis, step in enumerate(corner):
            index, inside = _tap(floors[axis] + step, sizes[axis], fill_mode)
            flat = flat + index * strides[axis]
            valid = valid if inside is None else valid & inside
            if order:
                w = fractions[axis] if step else 1 - fractions[axis]
                weight = w if weight is None else weight * w
        values = take(table, flat, axis=0)
        values = where(valid.reshape(valid.shape + trailing), values, fill_value)
        if weight is not None:
            values = values * convert_to_tensor(weight.reshape(weight.shape + trailing))
        total = values if total is None else total + values
    if integer:   # no gradient reaches an integer input: the rounding runs on the array
        rounded = xp().sign(total.data) * xp().floor(xp().abs(total.data) + 0.5)
        total = saturate_cast(rounded, source.name)
    return total


def _sample_batch(x, in_y, in_x, order, fill_mode, fill_value):
    """The NHWC batch ``x`` read at ``(in_y, in_x)`` (``(batch, H', W')`` each), in its
    dtype."""
    batch, height, width, channels = x.shape
    base = (xp().arange(batch) * (height * width))[:, None, None]
    out = sample(reshape(x, (-1, channels)), (height, width), (in_y, in_x), order, fill_mode,
                 fill_value, base)
    return cast(out, np.dtype(x.dtype).name)


def _round_half_up(position):
    return xp().floor(position + 0.5)


def map_coordinates(inputs, coordinates, order, fill_mode="constant", fill_value=0):
    """``inputs`` read at ``coordinates`` (one row of positions per input axis) as
    ``keras.ops.image.map_coordinates`` (``scipy.ndimage.map_coordinates`` with Keras'
    boundary handling): ``order`` 0 (nearest, halves round up) or 1 (linear); positions
    outside the input use ``fill_mode`` (``"constant"`` reads ``fill_value``;
    ``"nearest"``, ``"wrap"``, ``"mirror"``, ``"reflect"``). Differentiable in
    ``inputs``.

    Example:
        >>> map_coordinates(np.arange(5.0), [[0.5, 3.25]], order=1)
        [0.5, 3.25]
    """
    x = convert_to_tensor(inputs)
    coordinates = [xp().asarray(c, dtype=np.float64) for c in (
        convert_to_numpy(coordinates) if not isinstance(coordinates, (list, tuple))
        else [convert_to_numpy(c) for c in coordinates])]
    if len(coordinates) != x.ndim or coordinates[0].ndim < 1:
        raise ValueError(f"map_coordinates needs coordinates with one row per input axis "
                         f"({x.ndim}), got {len(coordinates)} rows for inputs.shape="
                         f"{tuple(x.shape)}")
    check_choice("map_coordinates", "fill_mode", fill_mode, MAP_COORDINATES_FILL_MODES)
    check_choice("map_coordinates", "order", order, (0, 1))
    if order == 0:
        coordinates = [_round_half_up(c) for c in coordinates]
    return sample(reshape(x, (-1,)), tuple(x.shape), coordinates, order, fill_mode,
                  fill_value)


def _tf_wrap(position, size):
    """TensorFlow's ``wrap`` of out-of-image sample positions (``ImageProjectiveTransform``),
    which Keras' layers reproduce."""
    if size <= 1:
        return xp().zeros_like(position)
    span = size - 1
    low = position + size * (xp().trunc(-position / span) + 1)
    high = position - size * xp().trunc(position / span)
    moved = xp().where(position < 0, low, xp().where(position > size - 1, high, position))
    return xp().clip(moved, 0, size - 1)


def _projective_sample(name, images, transforms, interpolation, fill_mode, fill_value,
                       data_format, round_half_away):
    """``images`` sampled at ``((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k)``,
    ``k = c0 x + c1 y + 1``, one 8-parameter transform per image."""
    check_choice(name, "interpolation", interpolation, AFFINE_INTERPOLATIONS)
    x, restore = to_batch(name, images, data_format)
    batch, height, width, _ = x.shape
    t = xp().asarray(np.asarray(transforms, dtype=np.float32).reshape(-1, 8))
    if t.shape[0] not in (1, batch):
        raise ValueError(f"{name} needs one transform or one per image ({batch}), got "
                         f"{t.shape[0]}")
    t = t[:, :, None, None]
    y, xs = xp().meshgrid(xp().arange(height, dtype=np.float32),
                          xp().arange(width, dtype=np.float32), indexing="ij")
    k = t[:, 6] * xs + t[:, 7] * y + np.float32(1)
    with np.errstate(divide="ignore", invalid="ignore"):
        k = xp().where(k == 0, np.float32(np.nan), k)
        in_x = (t[:, 0] * xs + t[:, 1] * y + t[:, 2]) / k
        in_y = (t[:, 3] * xs + t[:, 4] * y + t[:, 5]) / k
    in_y, in_x = (xp().broadcast_to(p, (batch, height, width)) for p in (in_y, in_x))
    if fill_mode == "wrap":
        in_y, in_x = _tf_wrap(in_y, height), _tf_wrap(in_x, width)
        fill_mode = "constant"
    order = AFFINE_INTERPOLATIONS[interpolation]
    if order == 0:
        if round_half_away:
            in_y, in_x = [xp().sign(p) * xp().floor(xp().abs(p) + 0.5) for p in (in_y, in_x)]
        else:
            in_y, in_x = _round_half_up(in_y), _round_half_up(in_x)
    return restore(_sample_batch(x, in_y, in_x, order, fill_mode, fill_value))


def affine_transform(images, transform, interpolation="bilinear", fill_mode="constant",
                     fill_value=0, data_format=None):
    """``images`` transformed as ``keras.ops.image.affine_transform``: output pixel
    ``(y, x)`` reads the input at ``((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k)``,
    ``k = c0 x + c1 y + 1``, from ``transform = [a0, a1, a2, b0, b1, b2, c0, c1]`` (one,
    or one per image). ``interpolation`` ``"bilinear"`` or ``"nearest"`` (halves round
    away from zero); ``fill_mode`` ``"constant"`` (``fill_value``), ``"nearest"``,
    ``"reflect"``, ``"mirror"`` or ``"wrap"`` (TensorFlow's wrap). Differentiable in
    ``images``.

    Example:
        >>> affine_transform(np.ones((4, 4, 1)), [1, 0, -2, 0, 1, 0, 0, 0])[0, :, 0]
        [0.0, 0.0, 1.0, 1.0]
    """
    check_choice("affine_transform", "fill_mode", fill_mode, MAP_COORDINATES_FILL_MODES)
    t = np.asarray(convert_to_numpy(transform), dtype=np.float32)
    if t.ndim not in (1, 2) or t.shape[-1] != 8:
        raise ValueError(f"affine_transform needs transform of shape (8,) or (batch, 8), got "
                         f"transform.shape={t.shape}")
    return _projective_sample("affine_transform", images, t, interpolation, fill_mode,
                              fill_value, data_format, round_half_away=True)


def compute_homography_matrix(start_points, end_points):
    """The ``(batch, 8)`` projective transforms mapping ``end_points`` to ``start_points``
    (``(batch, 4, 2)`` corners ``(x, y)``), solved as Keras does."""
    start = np.asarray(start_points, dtype=np.float64).reshape(-1, 4, 2)
    end = np.asarray(end_points, dtype=np.float64).reshape(-1, 4, 2)
    rows = []
    for corner in range(4):
        ex, ey = end[:, corner, 0], end[:, corner, 1]
        sx, sy = start[:, corner, 0], start[:, corner, 1]
        one, zero = np.ones_like(ex), np.zeros_like(ex)
        rows.append(np.stack([ex, ey, one, zero, zero, zero, -sx * ex, -sx * ey], axis=-1))
        rows.append(np.stack([zero, zero, zero, ex, ey, one, -sy * ex, -sy * ey], axis=-1))
    target = start.reshape(-1, 8)[..., None]
    return np.linalg.solve(np.stack(rows, axis=1), target)[..., 0].astype(np.float32)


def perspective_transform(images, start_points, end_points, interpolation="bilinear",
                          fill_value=0, data_format=None):
    """``images`` warped so the corners ``start_points`` move to ``end_points`` (each
    ``(4, 2)`` or ``(batch, 4, 2)``, points ``(x, y)``), as
    ``keras.ops.image.perspective_transform``: outside the image reads ``fill_value``;
    nearest rounds halves up. Differentiable in ``images``.

    Example:
        >>> square = [[0, 0], [3, 0], [0, 3], [3, 3]]
        >>> perspective_transform(np.ones((4, 4, 1)), square, square).shape
        (4, 4, 1)
    """
    start = np.asarray(convert_to_numpy(start_points), dtype=np.float64)
    end = np.asarray(convert_to_numpy(end_points), dtype=np.float64)
    for label, points in (("start_points", start), ("end_points", end)):
        if points.ndim not in (2, 3) or points.shape[-2:] != (4, 2):
            raise ValueError(f"perspective_transform needs {label} of shape (4, 2) or "
                             f"(batch, 4, 2), got {label}.shape={points.shape}")
    if start.shape != end.shape:
        raise ValueError(f"perspective_transform needs start_points and end_points of one "
                         f"shape, got {start.shape} and {end.shape}")
    return _projective_sample("perspective_transform", images,
                              compute_homography_matrix(start, end), interpolation,
                              "constant", fill_value, data_format, round_half_away=False)


def elastic_transform(images, alpha=20.0, sigma=5.0, interpolation="bilinear",
                      fill_mode="reflect", fill_value=0.0, seed=None, data_format=None):
    """``images`` displaced by a random smooth field as
    ``keras.ops.image.elastic_transform``: per image, standard-normal displacements (times
    ``sigma``) blurred by a Gaussian of ``sigma`` (kernel ``int(6 sigma) | 1``) and scaled
    by ``alpha`` move each pixel's sample position; ``fill_mode`` as
    :func:`map_coordinates`. Random draws from ``seed`` (lamina's stream, so the numbers
    differ from Keras'). Differentiable in ``images``.

    Example:
        >>> elastic_transform(np.ones((8, 8, 3)), seed=1).shape
        (8, 8, 3)
    """
    check_choice("elastic_transform", "interpolation", interpolation, AFFINE_INTERPOLATIONS)
    check_choice("elastic_transform", "fill_mode", fill_mode, MAP_COORDINATES_FILL_MODES)
    x, restore = to_batch("elastic_transform", images, data_format)
    batch, height, width, _ = x.shape
    dtype = np.dtype(x.dtype) if np.dtype(x.dtype).kind == "f" else np.dtype("float32")
    size = int(6 * sigma) | 1
    noise = normal((batch, height, width, 2), stddev=float(sigma), dtype=dtype.name,
                   seed=seed)
    field = gaussian_blur(noise, (size, size), (sigma, sigma)).data * dtype.type(alpha)
    y, xs = xp().meshgrid(xp().arange(height, dtype=dtype), xp().arange(width, dtype=dtype),
                          indexing="ij")
    in_y, in_x = y + field[..., 1], xs + field[..., 0]
    if AFFINE_INTERPOLATIONS[interpolation] == 0:
        in_y, in_x = _round_half_up(in_y), _round_half_up(in_x)
    return restore(_sample_batch(x, in_y, in_x, AFFINE_INTERPOLATIONS[interpolation],
                                 fill_mode, fill_value))

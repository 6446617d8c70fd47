"""Geometric augmentation layers, active only while training: ``RandomFlip``,
``RandomRotation``, ``RandomZoom``, ``RandomTranslation`` (one affine transform per image,
sampled with Keras' fill modes and interpolations) and ``RandomCrop``."""

import math

import numpy as np

from ...backends.ops.conversion import convert_to_numpy
from ...backends.ops.image_sampling import AFFINE_INTERPOLATIONS, affine_transform
from ..base import LAYERS
from .image_layer import RandomImageLayer, base_factor, check_choice, symmetric_factor
from .image_resizing import check_size, smart_resize

FLIP_MODES = ("horizontal", "vertical", "horizontal_and_vertical")
FILL_MODES = ("reflect", "wrap", "constant", "nearest")   # Keras' layers (no "mirror")


@LAYERS.register()
class RandomFlip(RandomImageLayer):
    """Flips each image with probability 1/2 while training (one draw per image; with
    ``"horizontal_and_vertical"`` that image is flipped both ways), as Keras.

    Args:
        mode: ``"horizontal"`` (left-right), ``"vertical"`` (up-down) or
            ``"horizontal_and_vertical"`` (default).
        seed: optional seed of this layer's random stream.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
    """

    def __init__(self, mode="horizontal_and_vertical", seed=None, data_format=None,
                 name=None, trainable=True, dtype=None, input_shape=None):
        super().__init__(seed=seed, data_format=data_format, name=name, trainable=trainable,
                         dtype=dtype, input_shape=input_shape)
        self.mode = check_choice(self, mode, FLIP_MODES, "mode")

    def augment(self, images):
        return self.flip(images, self.uniform((images.shape[0],), 0.0, 1.0) <= 0.5)

    def flip(self, images, flips):
        """``images`` with those where ``flips`` (one bool per image) flipped."""
        flips = np.asarray(flips, dtype=bool)[:, None, None, None]
        if self.mode != "vertical":
            images = np.where(flips, images[:, :, ::-1], images)
        if self.mode != "horizontal":
            images = np.where(flips, images[:, ::-1], images)
        return images

    def get_config(self):
        return {**super().get_config(), "mode": self.mode}


class AffineImageLayer(RandomImageLayer):
    """An augmentation by one random affine transform per image (:meth:`transforms`),
    sampled with ``interpolation`` and ``fill_mode`` (``fill_value`` for ``"constant"``)."""

    def __init__(self, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, data_format=None, name=None, trainable=True, dtype=None,
                 input_shape=None):
        super().__init__(seed=seed, data_format=data_format, name=name, trainable=trainable,
                         dtype=dtype, input_shape=input_shape)
        self.fill_mode = check_choice(self, fill_mode, FILL_MODES, "fill_mode")
        self.interpolation = check_choice(self, interpolation, tuple(AFFINE_INTERPOLATIONS),
                                          "interpolation")
        self.fill_value = float(fill_value)

    def augment(self, images):
        batch, height, width = images.shape[:3]
        return convert_to_numpy(affine_transform(
            images, self.transforms(batch, height, width), self.interpolation,
            self.fill_mode, self.fill_value))

    def transforms(self, batch, height, width):
        """``(batch, 8)`` output-to-input transforms (Keras' ``affine_transform`` layout)."""
        raise NotImplementedError

    def get_config(self):
        return {**super().get_config(), "fill_mode": self.fill_mode,
                "interpolation": self.interpolation, "fill_value": self.fill_value}


@LAYERS.register()
class RandomRotation(AffineImageLayer):
    """Rotates each image about its center by a random angle while training.

    Args:
        factor: a fraction of a full turn: ``f`` draws angles in ``[-f, f] * 360°``, a pair
            ``(lower, upper)`` in ``[lower, upper] * 360°`` (positive: counter-clockwise).
        fill_mode: ``"reflect"`` (default), ``"wrap"``, ``"constant"`` or ``"nearest"``: how
            points outside the input are filled.
        interpolation: ``"bilinear"`` (default) or ``"nearest"``.
        seed: optional seed of this layer's random stream.
        fill_value: the value outside the image for ``fill_mode="constant"``.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
    """

    def __init__(self, factor, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, data_format=None, name=None, trainable=True, dtype=None,
                 input_shape=None):
        super().__init__(fill_mode=fill_mode, interpolation=interpolation, seed=seed,
                         fill_value=fill_value, data_format=data_format, name=name,
                         trainable=trainable, dtype=dtype, input_shape=input_shape)
        self.factor = base_factor(self, factor)

    def transforms(self, batch, height, width):
        degrees = self.uniform((batch,), self.factor[0] * 360.0, self.factor[1] * 360.0)
        ones, zeros = np.ones(batch, np.float32), np.zeros(batch, np.float32)
        return rotation_zoom_matrix(degrees * np.float32(math.pi / 180.0), ones, ones, zeros,
                                    zeros, height, width)

    def get_config(self):
        return {**super().get_config(), "factor": list(self.factor)}


@LAYERS.register()
class RandomZoom(AffineImageLayer):
    """Zooms each image about its center by a random factor while training.

    Args:
        height_factor: ``f`` or ``(lower, upper)`` in ``(-1, 1]``: the vertical scale is
            drawn in ``1 + [lower, upper]`` (``[-f, f]``); positive zooms out, negative in.
        width_factor: the same horizontally; ``None`` (default) keeps the aspect ratio (the
            height's draw).
        fill_mode, interpolation, seed, fill_value, data_format: as ``RandomRotation``.
    """

    def __init__(self, height_factor, width_factor=None, fill_mode="reflect",
                 interpolation="bilinear", seed=None, fill_value=0.0, data_format=None,
                 name=None, trainable=True, dtype=None, input_shape=None):
        super().__init__(fill_mode=fill_mode, interpolation=interpolation, seed=seed,
                         fill_value=fill_value, data_format=data_format, name=name,
                         trainable=trainable, dtype=dtype, input_shape=input_shape)
        self.height_range = symmetric_factor(self, height_factor, "height_factor", True)
        self.width_range = None if width_factor is None else symmetric_factor(
            self, width_factor, "width_factor", True)
        self.height_factor, self.width_factor = _plain(height_factor), _plain(width_factor)

    def transforms(self, batch, height, width):
        zoom_y = self.uniform((batch,), 1.0 + self.height_range[0], 1.0 + self.height_range[1])
        zoom_x = zoom_y if self.width_range is None else self.uniform(
            (batch,), 1.0 + self.width_range[0], 1.0 + self.width_range[1])
        zeros = np.zeros(batch, np.float32)
        return rotation_zoom_matrix(zeros, zoom_x, zoom_y, zeros, zeros, height, width)

    def get_config(self):
        return {**super().get_config(), "height_factor": self.height_factor,
                "width_factor": self.width_factor}


@LAYERS.register()
class RandomTranslation(AffineImageLayer):
    """Shifts each image by a random fraction of its size while training.

    Args:
        height_factor: ``f`` or ``(lower, upper)`` in ``[-1, 1]``: the vertical shift is
            drawn in ``[lower, upper] * height`` (``[-f, f]``); positive shifts down.
        width_factor: the same horizontally (positive shifts right).
        fill_mode, interpolation, seed, fill_value, data_format: as ``RandomRotation``.
    """

    def __init__(self, height_factor, width_factor, fill_mode="reflect",
                 interpolation="bilinear", seed=None, fill_value=0.0, data_format=None,
                 name=None, trainable=True, dtype=None, input_shape=None):
        super().__init__(fill_mode=fill_mode, interpolation=interpolation, seed=seed,
                         fill_value=fill_value, data_format=data_format, name=name,
                         trainable=trainable, dtype=dtype, input_shape=input_shape)
        self.height_range = symmetric_factor(self, height_factor, "height_factor")
        self.width_range = symmetric_factor(self, width_factor, "width_factor")
        self.height_factor, self.width_factor = _plain(height_factor), _plain(width_factor)

    def transforms(self, batch, height, width):
        shift_y = self.uniform((batch,), *self.height_range) * np.float32(height)
        shift_x = self.uniform((batch,), *self.width_range) * np.float32(width)
        zeros, ones = np.zeros(batch, np.float32), np.ones(batch, np.float32)
        return rotation_zoom_matrix(zeros, ones, ones, -shift_x, -shift_y, height, width)

    def get_config(self):
        return {**super().get_config(), "height_factor": self.height_factor,
                "width_factor": self.width_factor}


@LAYERS.register()
class RandomCrop(RandomImageLayer):
    """Crops a random ``(height, width)`` window while training (one window for the whole
    batch, as Keras). At inference, and for an image not larger than the target on both
    sides, it returns the largest centered window of the target's aspect ratio resized to
    ``(height, width)`` (Keras' documented behaviour; Keras 3.15's code returns the input
    unchanged at inference, against its own output shape).

    Args:
        height, width: the crop size.
        seed: optional seed of this layer's random stream.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
    """

    def __init__(self, height, width, seed=None, data_format=None, name=None, trainable=True,
                 dtype=None, input_shape=None):
        super().__init__(seed=seed, data_format=data_format, name=name, trainable=trainable,
                         dtype=dtype, input_shape=input_shape)
        self.height, self.width = check_size(self, height, width)

    def transform(self, images, training):
        height, width = images.shape[1:3]
        if not (training and height > self.height and width > self.width):
            return smart_resize(images, self.height, self.width)
        top = int(self.uniform((), 0.0, height - self.height + 1))
        left = int(self.uniform((), 0.0, width - self.width + 1))
        return images[:, top:top + self.height, left:left + self.width]

    def compute_output_shape(self, input_shape):
        return self._spatial_shape(input_shape, self.height, self.width)

    def get_config(self):
        return {**super().get_config(), "height": self.height, "width": self.width}


def _plain(factor):
    """A factor argument as JSON keeps it (a pair as a list)."""
    return list(factor) if isinstance(factor, (tuple, list)) else factor


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

"""Pixel-value layers: the augmentations ``RandomContrast``, ``RandomBrightness`` and
``RandomGrayscale`` (active only while training) and ``AutoContrast`` (always applied)."""

import numpy as np

from ...backends.ops.conversion import convert_to_numpy
from ...backends.ops.image_color import rgb_to_grayscale
from ..arguments import layer_error
from ..base import LAYERS
from .image_layer import ImageLayer, RandomImageLayer, base_factor, value_range_of


class ValueRangeLayer(RandomImageLayer):
    """An augmentation with Keras' ``factor`` (within ``bounds``) and pixel ``value_range``."""

    bounds = (-1.0, 1.0)

    def __init__(self, factor, value_range=(0, 255), seed=None, data_format=None, name=None,
                 trainable=True, dtype=None, input_shape=None):
        super().__init__(seed=seed, data_format=data_format, name=name, trainable=trainable,
                         dtype=dtype, input_shape=input_shape)
        self.factor = base_factor(self, factor, self.bounds)
        self.value_range = value_range_of(self, value_range)

    def get_config(self):
        return {**super().get_config(), "factor": list(self.factor),
                "value_range": list(self.value_range)}


@LAYERS.register()
class RandomContrast(ValueRangeLayer):
    """Scales each image's deviation from its per-channel mean by a random factor while
    training, then clips to ``value_range``.

    Args:
        factor: ``f`` in ``[0, 1]`` or ``(lower, upper)``: the contrast factor is drawn in
            ``[1 - lower, 1 + upper]`` (Keras: ``f`` gives ``lower = 0``, ``upper = f``).
        value_range: the pixel range ``[low, high]`` the output is clipped to (default
            ``(0, 255)``).
        seed: optional seed of this layer's random stream.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
    """

    bounds = (0.0, 1.0)

    def augment(self, images):
        factors = self.uniform((images.shape[0], 1, 1, 1), 1.0 - self.factor[0],
                               1.0 + self.factor[1])
        return self.adjust(images, factors)

    def adjust(self, images, factors):
        """``images`` with contrast ``factors`` (one per image) applied, clipped."""
        mean = images.mean(axis=(1, 2), keepdims=True)
        out = (images - mean) * np.asarray(factors, images.dtype).reshape(-1, 1, 1, 1) + mean
        return np.clip(out, *self.value_range).astype(images.dtype)


@LAYERS.register()
class RandomBrightness(ValueRangeLayer):
    """Adds a random offset to each image while training, then clips to ``value_range``.

    Args:
        factor: ``f`` in ``[-1, 1]`` or ``(lower, upper)``: the offset is drawn in
            ``[lower, upper] * (high - low)`` of ``value_range`` (``[-f, f]``).
        value_range: the pixel range ``[low, high]`` (default ``(0, 255)``).
        seed: optional seed of this layer's random stream.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
    """

    def augment(self, images):
        deltas = self.uniform((images.shape[0], 1, 1, 1), *self.factor)
        return self.adjust(images, deltas)

    def adjust(self, images, deltas):
        """``images`` plus ``deltas`` (fractions of the value range, one per image),
        clipped."""
        low, high = self.value_range
        deltas = np.asarray(deltas, images.dtype).reshape(-1, 1, 1, 1) * (high - low)
        return np.clip(images + deltas, low, high).astype(images.dtype)


@LAYERS.register()
class RandomGrayscale(RandomImageLayer):
    """Converts each RGB image to grayscale (kept as 3 equal channels) with probability
    ``factor`` while training.

    Args:
        factor: the probability, in ``[0, 1]`` (default 0.5).
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        seed: optional seed of this layer's random stream.
    """

    def __init__(self, factor=0.5, data_format=None, seed=None, name=None, trainable=True,
                 dtype=None, input_shape=None):
        super().__init__(seed=seed, data_format=data_format, name=name, trainable=trainable,
                         dtype=dtype, input_shape=input_shape)
        if isinstance(factor, bool) or not isinstance(factor, (int, float)) or \
                not 0 <= factor <= 1:
            raise layer_error(self, f"needs factor, a number in [0, 1], got factor={factor!r}")
        self.factor = float(factor)

    def augment(self, images):
        if images.shape[-1] != 3:
            raise layer_error(self, f"expects RGB images (3 channels), got "
                                    f"{images.shape[-1]} channels")
        chosen = self.uniform((images.shape[0],), 0.0, 1.0) < self.factor
        gray = convert_to_numpy(rgb_to_grayscale(images))
        return np.where(chosen[:, None, None, None], gray, images)

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


@LAYERS.register()
class AutoContrast(ImageLayer):
    """Stretches each channel of each image to the full ``value_range`` (its minimum to
    the low end, its maximum to the high end); a constant channel is left unchanged.
    Applied in training and inference, as Keras.

    Args:
        value_range: the pixel range ``[low, high]`` (default ``(0, 255)``).
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
    """

    keeps_integer_dtype = True

    def __init__(self, value_range=(0, 255), data_format=None, name=None, trainable=True,
                 dtype=None, input_shape=None):
        super().__init__(data_format=data_format, name=name, trainable=trainable, dtype=dtype,
                         input_shape=input_shape)
        self.value_range = value_range_of(self, value_range)

    def transform(self, images, training):
        low, high = (np.asarray(v, images.dtype) for v in self.value_range)
        scaled = (images - low) / (high - low) * 255
        lowest = scaled.min(axis=(1, 2), keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = 255 / (scaled.max(axis=(1, 2), keepdims=True) - lowest)
            out = np.clip(scaled * scale - lowest * scale, 0, 255) / 255 * (high - low) + low
        return np.where(np.isnan(out), images, out).astype(images.dtype)

    def get_config(self):
        return {**super().get_config(), "value_range": list(self.value_range)}

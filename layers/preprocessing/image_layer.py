"""What the image preprocessing layers share: images of rank 3 (one image) or 4 (a batch)
in either ``data_format``, worked on as host NumPy ``(batch, height, width, channels)``
arrays and returned as engine Tensors; Keras' ``training`` default (``True``: a layer called
on its own augments, ``predict``/``evaluate`` pass ``False``); seeded draws; and Keras'
``factor`` and ``value_range`` arguments."""

import numpy as np

from ...backends import state
from ...backends.autodiff import Tensor
from ...backends.random import SeededStream
from ...backends.replica import draw_rows
from ..arguments import check_data_format, layer_error
from ..base import Layer
from .data_layer import to_host


class ImageLayer(Layer):
    """Base of the image layers: subclasses implement :meth:`transform` on a float NHWC
    batch. Not differentiable (a data step: place it before the trainable layers).

    Args:
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
    """

    keeps_integer_dtype = False   # True: integer images come back rounded, in their dtype

    def __init__(self, data_format=None, name=None, trainable=True, dtype=None,
                 input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        self.data_format = check_data_format(self, data_format)

    def _convert_inputs(self, inputs):
        return to_host(inputs)   # checked in call, where the error can name the layer

    def call(self, inputs, training=True):
        images = to_host(inputs)
        if images.ndim not in (3, 4):
            raise layer_error(self, f"expects images of rank 3 (one image) or 4 (a batch), "
                                    f"got input of shape {images.shape}")
        source_dtype = images.dtype
        batch = images if images.ndim == 4 else images[None]
        if self.data_format == "channels_first":
            batch = batch.transpose(0, 2, 3, 1)
        if batch.dtype.kind not in "fiu":
            raise layer_error(self, f"expects numeric images, got dtype {images.dtype}")
        out = self.transform(batch.astype(self.dtype), training is None or bool(training))
        if source_dtype.kind in "iu" and self.keeps_integer_dtype:
            limits = np.iinfo(source_dtype)
            out = np.clip(np.round(out), limits.min, limits.max).astype(source_dtype)
        if self.data_format == "channels_first":
            out = out.transpose(0, 3, 1, 2)
        return Tensor(state.backend().asarray(out if images.ndim == 4 else out[0]))

    def transform(self, images, training):
        """The output batch for the float NHWC batch ``images``."""
        raise NotImplementedError

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def _spatial_shape(self, input_shape, height, width):
        """``input_shape`` with its height and width replaced."""
        shape = list(input_shape)
        if len(shape) not in (3, 4):
            raise layer_error(self, f"expects images of rank 3 or 4, got input shape "
                                    f"{tuple(input_shape)}")
        axis = -3 if self.data_format == "channels_last" else -2
        shape[axis], shape[axis + 1] = height, width
        return tuple(shape)

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format}


class RandomImageLayer(ImageLayer):
    """An augmentation layer: the identity unless training, random draws from its own
    ``seed`` (or the global stream that ``set_random_seed`` seeds)."""

    def __init__(self, seed=None, data_format=None, name=None, trainable=True, dtype=None,
                 input_shape=None):
        super().__init__(data_format=data_format, name=name, trainable=trainable, dtype=dtype,
                         input_shape=input_shape)
        if seed is not None and (not hasattr(seed, "__index__") or isinstance(seed, bool)):
            raise layer_error(self, f"needs seed, an int or None, got {seed!r}")
        self.seed = None if seed is None else int(seed)
        self._stream = SeededStream(self.seed)

    def transform(self, images, training):
        return self.augment(images) if training else images

    def augment(self, images):
        """The augmented float NHWC batch."""
        raise NotImplementedError

    def uniform(self, shape, low, high):
        """Uniform float32 draws in ``[low, high)`` (NumPy) from this layer's stream; a
        per-image draw in a data-parallel step is this process' rows of the global batch's
        draw, so the augmentation does not depend on the number of processes."""
        backend = state.backend()
        draws = draw_rows(lambda rows: backend.random_uniform(
            self._stream.generator(), rows, "float32", float(low), float(high)),
            tuple(shape))
        return np.asarray(state.backend().to_numpy(draws), dtype=np.float32)

    def get_config(self):
        return {**super().get_config(), "seed": self.seed}


def base_factor(layer, factor, bounds=(-1.0, 1.0)):
    """Keras' ``factor`` of the base image layer as ``[lower, upper]``: a number ``f`` in
    ``bounds`` gives ``[max(-|f|, bounds[0]), |f|]``; a pair is sorted (and must overlap
    ``bounds``)."""
    message = (f"needs factor, a number (or a list of two numbers) in the range "
               f"[{bounds[0]}, {bounds[1]}], got factor={factor!r}")
    if isinstance(factor, (tuple, list)):
        if len(factor) != 2 or not all(_is_number(f) for f in factor) or \
                factor[0] > bounds[1] or factor[1] < bounds[0]:
            raise layer_error(layer, message)
        return sorted(float(f) for f in factor)
    if not _is_number(factor) or not bounds[0] <= factor <= bounds[1]:
        raise layer_error(layer, message)
    return [max(-abs(float(factor)), bounds[0]), abs(float(factor))]


def symmetric_factor(layer, factor, name, open_low=False):
    """RandomZoom's and RandomTranslation's factors as ``[lower, upper]``: each number in
    ``[-1, 1]`` (``(-1, 1]`` with ``open_low``); a number ``f`` gives ``[-|f|, |f|]``."""
    pair = isinstance(factor, (tuple, list))
    values = list(factor) if pair else [factor]
    if (pair and len(values) != 2) or not all(
            _is_number(v) and (-1 < v <= 1 if open_low else -1 <= v <= 1) for v in values):
        low = "(" if open_low else "["
        raise layer_error(layer, f"needs {name}, a number (or a list of two numbers) in the "
                                 f"range {low}-1.0, 1.0], got {name}={factor!r}")
    if pair:
        return sorted(float(v) for v in values)
    return [-abs(float(factor)), abs(float(factor))]


def check_choice(layer, value, allowed, name):
    """``value`` if it is one of ``allowed``, else a ValueError naming ``name``."""
    if value not in allowed:
        raise layer_error(layer, f"needs {name} in {allowed}, got {name}={value!r}")
    return value


def value_range_of(layer, value_range):
    """Keras' ``value_range``: two numbers, returned sorted as a list."""
    if not isinstance(value_range, (tuple, list)) or len(value_range) != 2 or not all(
            _is_number(v) for v in value_range):
        raise layer_error(layer, f"needs value_range, a list of two numbers, got "
                                 f"value_range={value_range!r}")
    return sorted(float(v) for v in value_range)


def _is_number(value):
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, bool)

"""Regularization layers that act while training: SpatialDropout1D/2D/3D, GaussianNoise,
GaussianDropout, AlphaDropout and ActivityRegularization."""

import math

from ..backends import ops, state
from ..backends.random import SeededStream
from ..backends.replica import draw_rows, draw_shared
from .options import regularizers as regularizers_module
from .arguments import check_data_format, layer_error
from .base import LAYERS, InputSpec, Layer
from .core import Dropout


class BaseSpatialDropout(Dropout):
    """Dropout of whole channels: one keep/drop decision per (sample, channel), shared by
    every spatial position (``rank`` spatial axes; channels last, or at axis 1 for
    ``data_format="channels_first"``)."""

    rank = 1
    data_format = "channels_last"

    def __init__(self, rate, seed=None, name=None, trainable=True, dtype=None,
                 input_shape=None):
        super().__init__(rate, seed=seed, name=name, trainable=trainable, dtype=dtype,
                         input_shape=input_shape)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def _noise_shape(self, inputs):
        shape = inputs.shape
        if self.data_format == "channels_first":
            return (shape[0], shape[1]) + (1,) * self.rank
        return (shape[0],) + (1,) * self.rank + (shape[-1],)

    def get_config(self):
        config = super().get_config()
        config.pop("noise_shape", None)
        return config


@LAYERS.register()
class SpatialDropout1D(BaseSpatialDropout):
    """Drops entire channels of (batch, steps, channels) inputs with probability ``rate``
    while training (survivors scaled by ``1 / (1 - rate)``)."""

    rank = 1


class BaseFormattedSpatialDropout(BaseSpatialDropout):
    """Spatial dropout with Keras' ``data_format`` argument (2-D and 3-D)."""

    def __init__(self, rate, data_format=None, seed=None, name=None, trainable=True,
                 dtype=None, input_shape=None):
        super().__init__(rate, seed=seed, name=name, trainable=trainable, dtype=dtype,
                         input_shape=input_shape)
        self.data_format = check_data_format(self, data_format)

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format}


@LAYERS.register()
class SpatialDropout2D(BaseFormattedSpatialDropout):
    """Drops entire feature maps of (batch, h, w, channels) inputs with probability
    ``rate`` while training."""

    rank = 2


@LAYERS.register()
class SpatialDropout3D(BaseFormattedSpatialDropout):
    """Drops entire feature volumes of (batch, d1, d2, d3, channels) inputs with
    probability ``rate`` while training."""

    rank = 3


@LAYERS.register()
class GaussianDropout(Layer):
    """Multiplies the inputs by Gaussian noise of mean 1 and standard deviation
    ``sqrt(rate / (1 - rate))`` while training only.

    Args:
        rate: drop probability of the equivalent Dropout, in [0, 1).
        seed: optional seed for this layer's own random stream (else the global one).
    """

    supports_masking = True

    def __init__(self, rate, seed=None, name=None, trainable=True, dtype=None,
                 input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        if not 0.0 <= rate < 1.0:
            raise layer_error(self, f"needs rate in [0, 1), got {rate!r}")
        self.rate = float(rate)
        self.seed = seed
        self._stream = SeededStream(seed)

    def call(self, inputs, training=None):
        if not training or self.rate == 0.0:
            return inputs
        stddev = math.sqrt(self.rate / (1.0 - self.rate))
        noise = draw_rows(lambda shape: state.backend().random_normal(
            self._stream.generator(), shape, inputs.dtype, mean=1.0, stddev=stddev),
            inputs.shape)
        return ops.multiply(inputs, noise)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "rate": self.rate, "seed": self.seed}


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@LAYERS.register()
class AlphaDropout(Dropout):
    """Dropout that keeps the mean and variance of SELU activations, while training only.

    A dropped input is set to ``alpha_p = -alpha * scale`` of SELU (its negative
    saturation), then every value goes through ``a * x + b`` with ``a = ((1 - rate) * (1 +
    rate * alpha_p ** 2)) ** -0.5`` and ``b = -a * alpha_p * rate`` (Keras' formula).

    Args:
        rate: drop probability in [0, 1).
        noise_shape: optional shape of the keep/drop decisions, broadcast over the input
            (``None`` entries take the input's size).
        seed: optional seed for this layer's own random stream (else the global one).
    """

    def call(self, inputs, training=None):
        if not training or self.rate == 0.0:
            return inputs
        shape = tuple(inputs.shape) if self.noise_shape is None else tuple(
            size if wanted is None else wanted
            for size, wanted in zip(inputs.shape, self.noise_shape))
        def draw(size):
            return state.backend().random_uniform(self._stream.generator(), size,
                                                  inputs.dtype)
        # data-parallel training: the global batch's draw, this process' rows of it
        batch_axis = self.noise_shape is None or self.noise_shape[0] is None
        uniform = draw_rows(draw, shape) if batch_axis else draw_shared(draw, shape)
        kept = (uniform >= self.rate).astype(inputs.dtype)
        alpha_p = -_SELU_ALPHA * _SELU_SCALE
        a = ((1.0 - self.rate) * (1.0 + self.rate * alpha_p ** 2)) ** -0.5
        b = -a * alpha_p * self.rate
        # a * (x * kept + alpha_p * (1 - kept)) + b
        offset = (a * alpha_p) * (1 - kept) + b
        return ops.add(ops.multiply(inputs, a * kept), offset.astype(inputs.dtype))


@LAYERS.register()
class GaussianNoise(Layer):
    """Adds zero-mean Gaussian noise of standard deviation ``stddev`` while training only.

    Args:
        stddev: noise standard deviation (>= 0).
        seed: optional seed for this layer's own random stream (else the global one).
    """

    supports_masking = True

    def __init__(self, stddev, seed=None, name=None, trainable=True, dtype=None,
                 input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        if not stddev >= 0:
            raise layer_error(self, f"needs stddev >= 0, got {stddev!r}")
        self.stddev = float(stddev)
        self.seed = seed
        self._stream = SeededStream(seed)

    def call(self, inputs, training=None):
        if not training or self.stddev == 0.0:
            return inputs
        noise = draw_rows(lambda shape: state.backend().random_normal(
            self._stream.generator(), shape, inputs.dtype, stddev=self.stddev), inputs.shape)
        return ops.add(inputs, noise)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "stddev": self.stddev, "seed": self.seed}


@LAYERS.register()
class ActivityRegularization(Layer):
    """Identity that adds ``l1 * sum(|x|) + l2 * sum(x**2)`` of its input to the model's
    losses (through ``add_loss``, as Keras 3: summed, not divided by the batch size)."""

    supports_masking = True

    def __init__(self, l1=0.0, l2=0.0, name=None, trainable=True, dtype=None,
                 input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        if not (l1 >= 0 and l2 >= 0):
            raise layer_error(self, f"needs l1 >= 0 and l2 >= 0, got l1={l1!r}, l2={l2!r}")
        self.l1, self.l2 = float(l1), float(l2)
        self._penalty = regularizers_module.L1L2(l1=self.l1, l2=self.l2)

    def call(self, inputs):
        if self.l1 or self.l2:
            self.add_loss(self._penalty(inputs))
        return inputs

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "l1": self.l1, "l2": self.l2}

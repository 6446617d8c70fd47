"""Regularization layers that act while training: SpatialDropout1D/2D, GaussianNoise and
ActivityRegularization."""

from ..backends import ops, state
from ..backends.random import SeededStream
from .options import regularizers as regularizers_module
from .arguments import check_data_format, layer_error
from .base import LAYERS, InputSpec, Layer
from .core import Dropout


class BaseSpatialDropout(Dropout):
    """Dropout of whole channels: one keep/drop decision per (sample, channel), shared by
    every spatial position (``rank`` spatial axes, channels last)."""

    rank = 1

    def __init__(self, rate, seed=None, name=None, trainable=True, dtype=None,
                 input_shape=None):
        super().__init__(rate, seed=seed, name=name, trainable=trainable, dtype=dtype,
                         input_shape=input_shape)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def _noise_shape(self, inputs):
        shape = inputs.shape
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


@LAYERS.register()
class SpatialDropout2D(BaseSpatialDropout):
    """Drops entire feature maps of (batch, h, w, channels) inputs with probability
    ``rate`` while training."""

    rank = 2

    def __init__(self, rate, data_format=None, seed=None, name=None, trainable=True,
                 dtype=None, input_shape=None):
        super().__init__(rate, seed=seed, name=name, trainable=trainable, dtype=dtype,
                         input_shape=input_shape)
        self.data_format = check_data_format(self, data_format)

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format}


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
        noise = state.backend().random_normal(self._stream.generator(), inputs.shape,
                                              inputs.dtype, stddev=self.stddev)
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

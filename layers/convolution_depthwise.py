"""Depthwise and separable convolution layers: DepthwiseConv1D/2D and SeparableConv1D/2D
(aliases SeparableConvolution1D/2D). Weight names, shapes and config keys are Keras 3's.
"""

from ..backends import ops
from .options import weight_options
from .arguments import is_int, layer_error
from .base import LAYERS
from .convolution import BaseConv, check_filters


class BaseDepthwise(BaseConv):
    """Shared by the depthwise family: a depthwise kernel (*kernel_size, in, mult), named
    ``depthwise_weight`` (Keras 3: ``kernel`` in DepthwiseConv*, ``depthwise_kernel`` in
    SeparableConv*) and kept in the attribute of that name."""

    depthwise_weight = "depthwise_kernel"

    def _init_depthwise(self, depth_multiplier, depthwise_initializer, depthwise_regularizer,
                        depthwise_constraint):
        if not is_int(depth_multiplier) or depth_multiplier <= 0:
            raise layer_error(self, f"needs a positive int depth_multiplier, got "
                                    f"{depth_multiplier!r}")
        self.depth_multiplier = int(depth_multiplier)
        weight_options.store(self, "depthwise", depthwise_initializer, depthwise_regularizer,
                             depthwise_constraint)

    def _build_depthwise(self, channels):
        setattr(self, self.depthwise_weight, self._add_kernel(
            self.depthwise_weight, self.kernel_size + (channels, self.depth_multiplier),
            self.depthwise_initializer, self.depthwise_regularizer,
            self.depthwise_constraint))

    def _depthwise(self, inputs):
        return ops.depthwise_conv(inputs, getattr(self, self.depthwise_weight), self.strides,
                                  self.padding, self.dilation_rate)

    def get_config(self):
        return {**super().get_config(), "depth_multiplier": self.depth_multiplier}


class BaseDepthwiseConv(BaseDepthwise):
    """Convolves each input channel separately with ``depth_multiplier`` filters.

    Output channel ``c * depth_multiplier + m`` is channel ``c`` convolved with filter
    ``m``. Weights: ``kernel`` (*kernel_size, in, depth_multiplier), ``bias``
    (in * depth_multiplier,), as Keras 3 names them.
    """

    kernel_prefixes = ("depthwise",)
    depthwise_weight = "kernel"

    def __init__(self, kernel_size, strides=1, padding="valid", depth_multiplier=1,
                 data_format=None, dilation_rate=1, activation=None, use_bias=True,
                 depthwise_initializer="glorot_uniform", bias_initializer="zeros",
                 depthwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, bias_constraint=None, name=None, trainable=True,
                 dtype=None, input_shape=None):
        super().__init__(kernel_size, strides, padding, data_format, dilation_rate,
                         activation, use_bias, bias_initializer, bias_regularizer,
                         activity_regularizer, bias_constraint, name, trainable, dtype,
                         input_shape)
        self._init_depthwise(depth_multiplier, depthwise_initializer, depthwise_regularizer,
                             depthwise_constraint)

    def _build_kernels(self, channels):
        self._build_depthwise(channels)

    def _convolve_only(self, inputs):
        return self._depthwise(inputs)

    def _output_channels(self, channels):
        return channels * self.depth_multiplier


class BaseSeparableConv(BaseDepthwise):
    """Depthwise convolution followed by a pointwise (size-1 kernel) convolution to
    ``filters``.

    Weights: ``depthwise_kernel`` (*kernel_size, in, depth_multiplier),
    ``pointwise_kernel`` (1, ..., 1, in * depth_multiplier, filters), ``bias`` (filters,).
    """

    kernel_prefixes = ("depthwise", "pointwise")

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, depth_multiplier=1, activation=None, use_bias=True,
                 depthwise_initializer="glorot_uniform", pointwise_initializer="glorot_uniform",
                 bias_initializer="zeros", depthwise_regularizer=None, pointwise_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, depthwise_constraint=None,
                 pointwise_constraint=None, bias_constraint=None, name=None, trainable=True,
                 dtype=None, input_shape=None):
        super().__init__(kernel_size, strides, padding, data_format, dilation_rate,
                         activation, use_bias, bias_initializer, bias_regularizer,
                         activity_regularizer, bias_constraint, name, trainable, dtype,
                         input_shape)
        self.filters = check_filters(self, filters)
        self._init_depthwise(depth_multiplier, depthwise_initializer, depthwise_regularizer,
                             depthwise_constraint)
        weight_options.store(self, "pointwise", pointwise_initializer, pointwise_regularizer,
                             pointwise_constraint)

    def _build_kernels(self, channels):
        self._build_depthwise(channels)
        self.pointwise_kernel = self._add_kernel(
            "pointwise_kernel", (1,) * self.rank + (channels * self.depth_multiplier,
                                                    self.filters),
            self.pointwise_initializer, self.pointwise_regularizer, self.pointwise_constraint)

    def _convolve_only(self, inputs):
        return ops.conv(self._depthwise(inputs), self.pointwise_kernel, 1, "valid", 1)

    def _output_channels(self, channels):
        return self.filters

    def get_config(self):
        return {**super().get_config(), "filters": self.filters}


@LAYERS.register()
class DepthwiseConv1D(BaseDepthwiseConv):
    """Depthwise 1-D convolution: (batch, steps, in) -> (batch, steps', in * multiplier).

    Weights: ``kernel`` (k, in, depth_multiplier), ``bias``.
    """

    rank = 1


@LAYERS.register()
class DepthwiseConv2D(BaseDepthwiseConv):
    """Depthwise 2-D convolution: (batch, h, w, in) -> (batch, h', w', in * multiplier).

    Weights: ``kernel`` (kh, kw, in, depth_multiplier), ``bias``.
    """

    rank = 2


@LAYERS.register("SeparableConvolution1D")
class SeparableConv1D(BaseSeparableConv):
    """Separable 1-D convolution: (batch, steps, in) -> (batch, steps', filters).

    Weights: ``depthwise_kernel`` (k, in, depth_multiplier), ``pointwise_kernel``
    (1, in * depth_multiplier, filters), ``bias`` (filters,).
    """

    rank = 1


@LAYERS.register("SeparableConvolution2D")
class SeparableConv2D(BaseSeparableConv):
    """Separable 2-D convolution: (batch, h, w, in) -> (batch, h', w', filters).

    Weights: ``depthwise_kernel`` (kh, kw, in, depth_multiplier), ``pointwise_kernel``
    (1, 1, in * depth_multiplier, filters), ``bias`` (filters,).
    """

    rank = 2


# Keras' other names for the same classes (registered under both names).
SeparableConvolution1D, SeparableConvolution2D = SeparableConv1D, SeparableConv2D

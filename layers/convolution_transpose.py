"""Transposed convolution layers: Conv1DTranspose, Conv2DTranspose, Conv3DTranspose
(aliases Convolution1DTranspose/2DTranspose/3DTranspose).

A transposed convolution is the gradient, with respect to its input, of the convolution
of the output size by the same kernel (TensorFlow's ``conv_transpose``). Output size per
axis (``k`` the dilated kernel size): ``n * stride + max(k - stride, 0)`` for
``"valid"``, ``n * stride`` for ``"same"``. ``output_padding`` other than None is not
supported. Weights: ``kernel`` (*kernel_size, filters, in), ``bias`` (filters,).
"""

from ..backends import ops
from .options import weight_options
from .arguments import layer_error
from .base import LAYERS
from .convolution import BaseConv, check_filters


class BaseConvTranspose(BaseConv):
    """What Conv1D/2D/3DTranspose share; subclasses set ``rank``."""

    kernel_prefixes = ("kernel",)

    def __init__(self, filters, kernel_size, strides=1, padding="valid", output_padding=None,
                 data_format=None, dilation_rate=1, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, name=None, trainable=True,
                 dtype=None, input_shape=None):
        super().__init__(kernel_size, strides, padding, data_format, dilation_rate,
                         activation, use_bias, bias_initializer, bias_regularizer,
                         activity_regularizer, bias_constraint, name, trainable, dtype,
                         input_shape)
        self.filters = check_filters(self, filters)
        if output_padding is not None:
            raise layer_error(self, f"supports only output_padding=None, got "
                                    f"{output_padding!r}")
        self.output_padding = None
        weight_options.store(self, "kernel", kernel_initializer, kernel_regularizer,
                             kernel_constraint)

    def _build_kernels(self, channels):
        self.kernel = self._add_kernel("kernel", self.kernel_size + (self.filters, channels),
                                       self.kernel_initializer, self.kernel_regularizer,
                                       self.kernel_constraint)

    def _convolve_only(self, inputs):
        return ops.conv_transpose(inputs, self.kernel, self.strides, self.padding,
                                  self.dilation_rate)

    def _output_length(self, length, axis):
        stride = self.strides[axis]
        effective = (self.kernel_size[axis] - 1) * self.dilation_rate[axis] + 1
        if self.padding == "valid":
            return length * stride + max(effective - stride, 0)
        return length * stride

    def _output_channels(self, channels):
        return self.filters

    def get_config(self):
        return {**super().get_config(), "filters": self.filters,
                "output_padding": self.output_padding}


@LAYERS.register("Convolution1DTranspose")
class Conv1DTranspose(BaseConvTranspose):
    """Transposed 1-D convolution: (batch, steps, in) -> (batch, steps', filters).

    Weights: ``kernel`` (k, filters, in), ``bias`` (filters,).
    """

    rank = 1


@LAYERS.register("Convolution2DTranspose")
class Conv2DTranspose(BaseConvTranspose):
    """Transposed 2-D convolution: (batch, h, w, in) -> (batch, h', w', filters).

    Weights: ``kernel`` (kh, kw, filters, in), ``bias`` (filters,).
    """

    rank = 2


@LAYERS.register("Convolution3DTranspose")
class Conv3DTranspose(BaseConvTranspose):
    """Transposed 3-D convolution: (batch, d1, d2, d3, in) -> (batch, d1', d2', d3', filters).

    Weights: ``kernel`` (k1, k2, k3, filters, in), ``bias`` (filters,).
    """

    rank = 3

    def __init__(self, filters, kernel_size, strides=(1, 1, 1), padding="valid",
                 data_format=None, output_padding=None, dilation_rate=(1, 1, 1),
                 activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 name=None, trainable=True, dtype=None, input_shape=None):
        super().__init__(filters, kernel_size, strides, padding, output_padding, data_format,
                         dilation_rate, activation, use_bias, kernel_initializer,
                         bias_initializer, kernel_regularizer, bias_regularizer,
                         activity_regularizer, kernel_constraint, bias_constraint, name,
                         trainable, dtype, input_shape)


# Keras' other names for the same classes (registered under both names).
Convolution1DTranspose = Conv1DTranspose
Convolution2DTranspose = Conv2DTranspose
Convolution3DTranspose = Conv3DTranspose

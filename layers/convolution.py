"""Convolution layers: Conv1D, Conv2D, Conv2DTranspose, DepthwiseConv2D, SeparableConv2D.

Every layer is channels-last and shares one base class, :class:`BaseConv`, which checks
the arguments, the input and the window geometry, adds the bias and applies the
activation; a subclass only says which weights it owns and how it convolves.
Weight names, shapes and config keys are Keras 3's.
"""

from ..backends import ops
from ..backends.ops.conv import conv_output_length
from ..backends.ops.nn import FUSED_ACTIVATIONS
from .options import activations as activations_module
from .options import regularizers as regularizers_module
from .options import weight_options
from .arguments import check_data_format, check_padding, is_int, layer_error, positive_tuple
from .base import LAYERS, InputSpec, Layer


# ------------------------------------------------------------------ the shared base
class BaseConv(Layer):
    """What every convolution layer shares (not registered, not used directly).

    Subclasses set ``rank`` (number of spatial axes), ``paddings`` (allowed padding
    names) and ``kernel_prefixes`` (``"kernel"``, ``"depthwise"``, ...: each prefix has
    ``<prefix>_initializer/_regularizer/_constraint`` constructor arguments and config
    keys), and implement ``_build_kernels``, ``_convolve_only`` (or ``_convolve`` to fuse bias and activation), ``_output_channels`` and, when
    the geometry differs from a plain convolution's, ``_output_length``.
    """

    rank = 2
    paddings = ("valid", "same")
    kernel_prefixes = ()

    def __init__(self, kernel_size, strides, padding, data_format, dilation_rate, activation,
                 use_bias, bias_initializer, bias_regularizer, activity_regularizer,
                 bias_constraint, name, trainable, dtype, input_shape):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        rank = self.rank
        self.kernel_size = positive_tuple(self, kernel_size, rank, "kernel_size")
        self.strides = positive_tuple(self, strides, rank, "strides")
        self.dilation_rate = positive_tuple(self, dilation_rate, rank, "dilation_rate")
        self.padding = check_padding(self, padding, self.paddings)
        self.data_format = check_data_format(self, data_format)
        self.activation = activations_module.get(activation)
        self._activation_name = activations_module.serialize(self.activation)
        self.use_bias = bool(use_bias)
        weight_options.store(self, "bias", bias_initializer, bias_regularizer, bias_constraint)
        self.activity_regularizer = regularizers_module.get(activity_regularizer)
        self.bias = None
        self.input_spec = InputSpec(ndim=rank + 2)

    # -------------------------------------------------------------- subclass hooks
    def _build_kernels(self, channels):
        raise NotImplementedError

    def _convolve_only(self, inputs):
        raise NotImplementedError

    def _output_channels(self, channels):
        raise NotImplementedError

    def _output_length(self, length, axis):
        return conv_output_length(length, self.kernel_size[axis], self.strides[axis],
                                  self.padding, self.dilation_rate[axis])

    # -------------------------------------------------------------- shared logic
    def build(self, input_shape):
        channels = input_shape[-1]
        if channels is None:
            raise layer_error(self, f"needs a known channel (last) dimension, got input "
                                    f"shape {tuple(input_shape)}")
        self._check_geometry(input_shape)
        self._build_kernels(channels)
        if self.use_bias:
            self.bias = self.add_weight((self._output_channels(channels),),
                                        self.bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint, name="bias")
        self.input_spec = InputSpec(ndim=self.rank + 2, axes={-1: channels})
        self.built = True

    def _check_geometry(self, input_shape):
        """Output spatial sizes, raising a ValueError naming the layer when empty."""
        sizes = []
        for axis, length in enumerate(input_shape[1:-1]):
            if length is None:
                sizes.append(None)
                continue
            out = self._output_length(length, axis)
            if out <= 0:
                effective = (self.kernel_size[axis] - 1) * self.dilation_rate[axis] + 1
                raise layer_error(
                    self, f"has a window of size {effective} (kernel_size="
                          f"{self.kernel_size}, dilation_rate={self.dilation_rate}) larger "
                          f"than spatial axis {axis + 1} of its input of shape "
                          f"{tuple(input_shape)} with padding='{self.padding}'")
            sizes.append(out)
        return sizes

    def call(self, inputs):
        fused = self._activation_name if self._activation_name in FUSED_ACTIVATIONS else None
        try:
            outputs = self._convolve(inputs, fused)
        except ValueError:
            self._check_geometry(tuple(inputs.shape))
            raise
        return outputs if fused is not None else self.activation(outputs)

    def _convolve(self, inputs, fused_activation):
        """The convolution plus bias, plus ``fused_activation`` when it is not None."""
        outputs = self._convolve_only(inputs)
        if self.bias is not None:
            outputs = ops.add(outputs, self.bias)
        return outputs if fused_activation is None else self.activation(outputs)

    def compute_output_shape(self, input_shape):
        spatial = self._check_geometry(input_shape)
        channels = input_shape[-1]
        out_channels = None if channels is None else self._output_channels(channels)
        return (input_shape[0], *spatial, out_channels)

    def _add_kernel(self, name, shape, initializer, regularizer, constraint):
        return self.add_weight(shape, initializer, regularizer=regularizer,
                               constraint=constraint, name=name)

    def get_config(self):
        return {**super().get_config(),
                "kernel_size": list(self.kernel_size), "strides": list(self.strides),
                "padding": self.padding, "data_format": self.data_format,
                "dilation_rate": list(self.dilation_rate),
                "activation": self._activation_name, "use_bias": self.use_bias,
                **weight_options.config(self, *self.kernel_prefixes, "bias"),
                "activity_regularizer":
                    regularizers_module.serialize(self.activity_regularizer)}


def _check_filters(layer, filters):
    if not is_int(filters) or filters <= 0:
        raise layer_error(layer, f"needs a positive int filters, got {filters!r}")
    return int(filters)


# ------------------------------------------------------------------ plain convolution
class BaseConvolution(BaseConv):
    """Convolution with ``filters`` outputs and optional ``groups`` (Conv1D, Conv2D)."""

    kernel_prefixes = ("kernel",)

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, groups=1, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, name=None, trainable=True,
                 dtype=None, input_shape=None):
        super().__init__(kernel_size, strides, padding, data_format, dilation_rate,
                         activation, use_bias, bias_initializer, bias_regularizer,
                         activity_regularizer, bias_constraint, name, trainable, dtype,
                         input_shape)
        self.filters = _check_filters(self, filters)
        if not is_int(groups) or groups <= 0 or self.filters % groups:
            raise layer_error(self, f"needs groups to be a positive int dividing filters="
                                    f"{self.filters}, got groups={groups!r}")
        self.groups = int(groups)
        weight_options.store(self, "kernel", kernel_initializer, kernel_regularizer,
                             kernel_constraint)

    def _build_kernels(self, channels):
        if channels % self.groups:
            raise layer_error(self, f"needs input channels divisible by groups="
                                    f"{self.groups}, got {channels} channels")
        self.kernel = self._add_kernel(
            "kernel", self.kernel_size + (channels // self.groups, self.filters),
            self.kernel_initializer, self.kernel_regularizer, self.kernel_constraint)

    def _convolve(self, inputs, fused_activation):
        # One fused op: convolution, bias and activation in place, one backward.
        return ops.conv(inputs, self.kernel, self.strides, self.padding, self.dilation_rate,
                        bias=self.bias, activation=fused_activation)

    def _output_channels(self, channels):
        return self.filters

    def get_config(self):
        return {**super().get_config(), "filters": self.filters, "groups": self.groups}


@LAYERS.register()
class Conv1D(BaseConvolution):
    """1-D convolution over (batch, steps, channels) -> (batch, new_steps, filters).

    Args:
        filters: number of output channels.
        kernel_size, strides, dilation_rate: an int or a tuple of one int.
        padding: ``"valid"``, ``"same"`` or ``"causal"`` (zeros on the left only, so
            output t sees inputs <= t).
        groups: split the input channels into this many groups.
        activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
        bias_regularizer, activity_regularizer: as in :class:`Dense`.
    Weights: ``kernel`` (kernel_size, in // groups, filters), ``bias`` (filters,).
    """

    rank = 1
    paddings = ("valid", "same", "causal")


@LAYERS.register()
class Conv2D(BaseConvolution):
    """2-D convolution over (batch, height, width, channels) -> (batch, h', w', filters).

    Args:
        filters: number of output channels.
        kernel_size, strides, dilation_rate: an int or a tuple of two ints.
        padding: ``"valid"`` (no padding) or ``"same"`` (output size ``ceil(n / stride)``).
        groups, activation, use_bias, initializers, regularizers: as Keras.
    Weights: ``kernel`` (kh, kw, in // groups, filters), ``bias`` (filters,).

    Example:
        >>> conv = lamina.layers.Conv2D(32, 3, padding="same", activation="relu")
    """

    rank = 2


# ------------------------------------------------------------------ transposed convolution
@LAYERS.register()
class Conv2DTranspose(BaseConv):
    """Transposed 2-D convolution (the gradient of Conv2D with respect to its input).

    Output size per axis (``k`` the dilated kernel size): ``n * stride + max(k - stride, 0)``
    for ``"valid"``, ``n * stride`` for ``"same"``. ``output_padding`` other than None is
    not supported.
    Weights: ``kernel`` (kh, kw, filters, in), ``bias`` (filters,).
    """

    rank = 2
    kernel_prefixes = ("kernel",)

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 output_padding=None, data_format=None, dilation_rate=(1, 1), activation=None,
                 use_bias=True, kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, name=None, trainable=True,
                 dtype=None, input_shape=None):
        super().__init__(kernel_size, strides, padding, data_format, dilation_rate,
                         activation, use_bias, bias_initializer, bias_regularizer,
                         activity_regularizer, bias_constraint, name, trainable, dtype,
                         input_shape)
        self.filters = _check_filters(self, filters)
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


# ------------------------------------------------------------------ depthwise and separable
class BaseDepthwise(BaseConv):
    """Shared by the depthwise family: a ``depthwise_kernel`` (*kernel_size, in, mult)."""

    def _init_depthwise(self, depth_multiplier, depthwise_initializer, depthwise_regularizer,
                        depthwise_constraint):
        if not is_int(depth_multiplier) or depth_multiplier <= 0:
            raise layer_error(self, f"needs a positive int depth_multiplier, got "
                                    f"{depth_multiplier!r}")
        self.depth_multiplier = int(depth_multiplier)
        weight_options.store(self, "depthwise", depthwise_initializer, depthwise_regularizer,
                             depthwise_constraint)

    def _build_depthwise(self, channels):
        self.depthwise_kernel = self._add_kernel(
            "depthwise_kernel", self.kernel_size + (channels, self.depth_multiplier),
            self.depthwise_initializer, self.depthwise_regularizer, self.depthwise_constraint)

    def _depthwise(self, inputs):
        return ops.depthwise_conv(inputs, self.depthwise_kernel, self.strides, self.padding,
                                  self.dilation_rate)

    def get_config(self):
        return {**super().get_config(), "depth_multiplier": self.depth_multiplier}


@LAYERS.register()
class DepthwiseConv2D(BaseDepthwise):
    """Convolves each input channel separately with ``depth_multiplier`` filters.

    Output channel ``c * depth_multiplier + m`` is channel ``c`` convolved with filter
    ``m``. Weights: ``depthwise_kernel`` (kh, kw, in, depth_multiplier), ``bias``
    (in * depth_multiplier,).
    """

    rank = 2
    kernel_prefixes = ("depthwise",)

    def __init__(self, kernel_size, strides=(1, 1), padding="valid", depth_multiplier=1,
                 data_format=None, dilation_rate=(1, 1), activation=None, use_bias=True,
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


@LAYERS.register()
class SeparableConv2D(BaseDepthwise):
    """Depthwise convolution followed by a 1x1 (pointwise) convolution to ``filters``.

    Weights: ``depthwise_kernel`` (kh, kw, in, depth_multiplier), ``pointwise_kernel``
    (1, 1, in * depth_multiplier, filters), ``bias`` (filters,).
    """

    rank = 2
    kernel_prefixes = ("depthwise", "pointwise")

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None,
                 dilation_rate=(1, 1), depth_multiplier=1, activation=None, use_bias=True,
                 depthwise_initializer="glorot_uniform", pointwise_initializer="glorot_uniform",
                 bias_initializer="zeros", depthwise_regularizer=None, pointwise_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, depthwise_constraint=None,
                 pointwise_constraint=None, bias_constraint=None, name=None, trainable=True,
                 dtype=None, input_shape=None):
        super().__init__(kernel_size, strides, padding, data_format, dilation_rate,
                         activation, use_bias, bias_initializer, bias_regularizer,
                         activity_regularizer, bias_constraint, name, trainable, dtype,
                         input_shape)
        self.filters = _check_filters(self, filters)
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

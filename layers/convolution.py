"""Convolution layers: Conv1D, Conv2D, Conv3D (aliases Convolution1D/2D/3D) and the base
class of every convolution layer (the transposed ones are in :mod:`.convolution_transpose`,
the depthwise and separable ones in :mod:`.convolution_depthwise`).

Every layer computes channels-last (``data_format="channels_first"`` inputs are transposed
around the computation) and shares one base class, :class:`BaseConv`, which checks the
arguments, the input and the window geometry, adds the bias and applies the activation; a
subclass only says which weights it owns and how it convolves. Weight names, shapes and
config keys are Keras 3's.
"""

from ..backends import ops
from ..backends.ops.conv import conv_output_length
from ..backends.ops.activation_kernels import FUSED_ACTIVATIONS
from .options import activations as activations_module
from .options import regularizers as regularizers_module
from .options import weight_options
from .arguments import check_data_format, check_padding, is_int, layer_error, positive_tuple
from .base import LAYERS, InputSpec, Layer
from .channels import channel_axis, channels_last_shape, run_channels_last, shape_channels_last


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
        channels = channels_last_shape(self, input_shape)[-1]
        if channels is None:
            raise layer_error(self, f"needs a known channel dimension, got input shape "
                                    f"{tuple(input_shape)}")
        self._check_geometry(channels_last_shape(self, input_shape))
        self._build_kernels(channels)
        if self.use_bias:
            self.bias = self.add_weight((self._output_channels(channels),),
                                        self.bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint, name="bias")
        self.input_spec = InputSpec(ndim=self.rank + 2, axes={channel_axis(self): channels})
        self.built = True

    def _check_geometry(self, input_shape):
        """Output spatial sizes of a channels-last ``input_shape``, raising a ValueError
        naming the layer when empty."""
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
        return run_channels_last(self, inputs, self._call_channels_last)

    def _call_channels_last(self, inputs):
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
        return shape_channels_last(self, input_shape, self._output_shape_channels_last)

    def _output_shape_channels_last(self, input_shape):
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


def check_filters(layer, filters):
    """``filters`` as a positive int (a ValueError naming the layer otherwise)."""
    if not is_int(filters) or filters <= 0:
        raise layer_error(layer, f"needs a positive int filters, got {filters!r}")
    return int(filters)


# ------------------------------------------------------------------ plain convolution
class BaseConvolution(BaseConv):
    """Convolution with ``filters`` outputs and optional ``groups`` (Conv1D/2D/3D)."""

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
        self.filters = check_filters(self, filters)
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

    def convolution_op(self, inputs, kernel):
        """``inputs`` (laid out as ``data_format``) convolved with ``kernel`` (no bias, no
        activation), as Keras' ``Conv.convolution_op``: a subclass overrides it to change
        the convolution (``call`` then adds the bias and applies the activation to what it
        returns) or calls it from its own ``call``."""
        return run_channels_last(self, inputs, lambda x: ops.conv(
            x, kernel, self.strides, self.padding, self.dilation_rate))

    def call(self, inputs):
        if type(self).convolution_op is BaseConvolution.convolution_op:
            return super().call(inputs)  # the fused convolution + bias + activation
        outputs = self.convolution_op(inputs, self.kernel)
        if self.bias is not None:
            shape = [1] * len(outputs.shape)
            shape[channel_axis(self)] = self.filters
            outputs = ops.add(outputs, ops.reshape(self.bias, shape))
        return self.activation(outputs)

    def get_config(self):
        return {**super().get_config(), "filters": self.filters, "groups": self.groups}


@LAYERS.register("Convolution1D")
class Conv1D(BaseConvolution):
    """1-D convolution over (batch, steps, channels) -> (batch, new_steps, filters).

    Args:
        filters: number of output channels.
        kernel_size, strides, dilation_rate: an int or a tuple of one int.
        padding: ``"valid"``, ``"same"`` or ``"causal"`` (zeros on the left only, so
            output t sees inputs <= t).
        data_format: ``"channels_last"`` (default) or ``"channels_first"`` (batch,
            channels, steps).
        groups: split the input channels into this many groups.
        activation, use_bias, kernel_initializer, bias_initializer, kernel_regularizer,
        bias_regularizer, activity_regularizer: as in :class:`Dense`.
    Weights: ``kernel`` (kernel_size, in // groups, filters), ``bias`` (filters,).
    """

    rank = 1
    paddings = ("valid", "same", "causal")


@LAYERS.register("Convolution2D")
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


@LAYERS.register("Convolution3D")
class Conv3D(BaseConvolution):
    """3-D convolution over (batch, d1, d2, d3, channels) -> (batch, d1', d2', d3', filters).

    Args: as :class:`Conv2D`, with tuples of three ints; ``padding`` ``"valid"`` or
    ``"same"``. Weights: ``kernel`` (k1, k2, k3, in // groups, filters), ``bias``
    (filters,).
    """

    rank = 3


# Keras' other names for the same classes (registered under both names).
Convolution1D, Convolution2D, Convolution3D = Conv1D, Conv2D, Conv3D

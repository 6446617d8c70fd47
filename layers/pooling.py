"""Pooling layers: Max/AveragePooling1D/2D/3D and the global poolings, with Keras' aliases
(MaxPool*, AvgPool*, GlobalMaxPool*, GlobalAvgPool*).

Windowed pooling computes channels-last (``data_format="channels_first"`` inputs are
transposed around it); the global poolings reduce the spatial axes of either layout.
"""

from ..backends import ops
from ..backends.ops.conv import conv_output_length
from .arguments import check_data_format, check_padding, layer_error, positive_tuple
from .base import LAYERS, InputSpec, Layer
from .channels import channel_axis, channels_last_shape, run_channels_last, shape_channels_last


class BasePooling(Layer):
    """Windowed pooling shared by Max/AveragePooling1D/2D/3D.

    Subclasses set ``rank`` (spatial axes) and ``mode`` (``"max"`` or ``"average"``).
    ``strides`` default to ``pool_size``; ``padding="same"`` pads so the output has
    ``ceil(n / stride)`` cells (average pooling ignores the padded cells, as Keras).
    """

    rank = 2
    mode = "max"

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format=None,
                 name=None, trainable=True, dtype=None, input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        self.pool_size = positive_tuple(self, pool_size, self.rank, "pool_size")
        self.strides = (self.pool_size if strides is None
                        else positive_tuple(self, strides, self.rank, "strides"))
        self.padding = check_padding(self, padding, ("valid", "same"))
        self.data_format = check_data_format(self, data_format)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def build(self, input_shape):
        self._output_spatial(channels_last_shape(self, input_shape))
        self.built = True

    def _output_spatial(self, input_shape):
        """Output spatial sizes of a channels-last ``input_shape`` (a ValueError naming
        the layer when a window does not fit)."""
        sizes = []
        for axis, length in enumerate(input_shape[1:-1]):
            if length is None:
                sizes.append(None)
                continue
            out = conv_output_length(length, self.pool_size[axis], self.strides[axis],
                                     self.padding, 1)
            if out <= 0:
                raise layer_error(self, f"has pool_size={self.pool_size} larger than its "
                                        f"input of shape {tuple(input_shape)} with "
                                        f"padding='{self.padding}'")
            sizes.append(out)
        return sizes

    def call(self, inputs):
        return run_channels_last(self, inputs, self._pool)

    def _pool(self, inputs):
        try:
            return ops.pool(inputs, self.pool_size, self.strides, self.padding, self.mode)
        except ValueError:
            self._output_spatial(tuple(inputs.shape))
            raise

    def compute_output_shape(self, input_shape):
        return shape_channels_last(
            self, input_shape,
            lambda shape: (shape[0], *self._output_spatial(shape), shape[-1]))

    def get_config(self):
        return {**super().get_config(), "pool_size": list(self.pool_size),
                "padding": self.padding, "strides": list(self.strides),
                "data_format": self.data_format}


@LAYERS.register("MaxPool1D")
class MaxPooling1D(BasePooling):
    """Max over windows of ``pool_size`` steps: (batch, steps, ch) -> (batch, steps', ch)."""

    rank, mode = 1, "max"


@LAYERS.register("MaxPool2D")
class MaxPooling2D(BasePooling):
    """Max over ``pool_size`` windows: (batch, h, w, ch) -> (batch, h', w', ch).

    Example:
        >>> lamina.layers.MaxPooling2D((2, 2))   # halves height and width
    """

    rank, mode = 2, "max"


@LAYERS.register("MaxPool3D")
class MaxPooling3D(BasePooling):
    """Max over ``pool_size`` windows: (batch, d1, d2, d3, ch) -> (batch, d1', d2', d3', ch)."""

    rank, mode = 3, "max"


@LAYERS.register("AvgPool1D")
class AveragePooling1D(BasePooling):
    """Mean over windows of ``pool_size`` steps."""

    rank, mode = 1, "average"


@LAYERS.register("AvgPool2D")
class AveragePooling2D(BasePooling):
    """Mean over ``pool_size`` windows (padded cells not counted)."""

    rank, mode = 2, "average"


@LAYERS.register("AvgPool3D")
class AveragePooling3D(BasePooling):
    """Mean over 3-D ``pool_size`` windows (padded cells not counted)."""

    rank, mode = 3, "average"


# ------------------------------------------------------------------ global pooling
class BaseGlobalPooling(Layer):
    """Reduces every spatial axis: (batch, *spatial, ch) -> (batch, ch), or keeps them as
    size-1 axes with ``keepdims=True`` (channels-first: (batch, ch, *spatial))."""

    rank = 2

    def __init__(self, data_format=None, keepdims=False, name=None, trainable=True,
                 dtype=None, input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        self.data_format = check_data_format(self, data_format)
        self.keepdims = bool(keepdims)
        self.input_spec = InputSpec(ndim=self.rank + 2)
        first = 2 if self.data_format == "channels_first" else 1
        self.reduction_axes = tuple(range(first, first + self.rank))

    def compute_output_shape(self, input_shape):
        channels = input_shape[channel_axis(self)]
        if not self.keepdims:
            return (input_shape[0], channels)
        return shape_channels_last(self, input_shape,
                                   lambda shape: (shape[0],) + (1,) * self.rank + (channels,))

    def compute_mask(self, inputs, mask=None):
        return None

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format,
                "keepdims": self.keepdims}


class _GlobalAverage(BaseGlobalPooling):
    def call(self, inputs):
        return ops.mean(inputs, axis=self.reduction_axes, keepdims=self.keepdims)


class _GlobalMax(BaseGlobalPooling):
    def call(self, inputs):
        return ops.max(inputs, axis=self.reduction_axes, keepdims=self.keepdims)


@LAYERS.register("GlobalAvgPool1D")
class GlobalAveragePooling1D(BaseGlobalPooling):
    """Mean over time: (batch, steps, ch) -> (batch, ch). With a mask (batch, steps),
    only the unmasked steps are averaged."""

    rank = 1
    supports_masking = True

    def call(self, inputs, mask=None):
        steps = self.reduction_axes[0]
        if mask is None:
            return ops.mean(inputs, axis=steps, keepdims=self.keepdims)
        weights = ops.expand_dims(ops.cast(mask, inputs.dtype), channel_axis(self))
        total = ops.sum(inputs * weights, axis=steps, keepdims=self.keepdims)
        count = ops.maximum(ops.sum(weights, axis=steps, keepdims=self.keepdims), 1.0)
        return total / count


@LAYERS.register("GlobalAvgPool2D")
class GlobalAveragePooling2D(_GlobalAverage):
    """Mean over height and width: (batch, h, w, ch) -> (batch, ch)."""

    rank = 2


@LAYERS.register("GlobalMaxPool1D")
class GlobalMaxPooling1D(_GlobalMax):
    """Max over time: (batch, steps, ch) -> (batch, ch)."""

    rank = 1


@LAYERS.register("GlobalMaxPool2D")
class GlobalMaxPooling2D(_GlobalMax):
    """Max over height and width: (batch, h, w, ch) -> (batch, ch)."""

    rank = 2


@LAYERS.register("GlobalAvgPool3D")
class GlobalAveragePooling3D(_GlobalAverage):
    """Mean over the three spatial axes: (batch, d1, d2, d3, ch) -> (batch, ch)."""

    rank = 3


@LAYERS.register("GlobalMaxPool3D")
class GlobalMaxPooling3D(_GlobalMax):
    """Max over the three spatial axes: (batch, d1, d2, d3, ch) -> (batch, ch)."""

    rank = 3


# Keras' other names for the same classes (registered under both names).
MaxPool1D, MaxPool2D, MaxPool3D = MaxPooling1D, MaxPooling2D, MaxPooling3D
AvgPool1D, AvgPool2D, AvgPool3D = AveragePooling1D, AveragePooling2D, AveragePooling3D
GlobalAvgPool1D, GlobalAvgPool2D, GlobalAvgPool3D = (
    GlobalAveragePooling1D, GlobalAveragePooling2D, GlobalAveragePooling3D)
GlobalMaxPool1D, GlobalMaxPool2D, GlobalMaxPool3D = (
    GlobalMaxPooling1D, GlobalMaxPooling2D, GlobalMaxPooling3D)

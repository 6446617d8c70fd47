"""Pooling layers: Max/AveragePooling1D/2D and the global poolings (channels-last)."""

from ..backends import ops
from ..backends.ops.conv import conv_output_length
from .arguments import check_data_format, check_padding, layer_error, positive_tuple
from .base import LAYERS, InputSpec, Layer


class BasePooling(Layer):
    """Windowed pooling shared by Max/AveragePooling1D/2D.

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
        self._output_spatial(input_shape)
        self.built = True

    def _output_spatial(self, input_shape):
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
        try:
            return ops.pool(inputs, self.pool_size, self.strides, self.padding, self.mode)
        except ValueError:
            self._output_spatial(tuple(inputs.shape))
            raise

    def compute_output_shape(self, input_shape):
        return (input_shape[0], *self._output_spatial(input_shape), input_shape[-1])

    def get_config(self):
        return {**super().get_config(), "pool_size": list(self.pool_size),
                "padding": self.padding, "strides": list(self.strides),
                "data_format": self.data_format}


@LAYERS.register()
class MaxPooling1D(BasePooling):
    """Max over windows of ``pool_size`` steps: (batch, steps, ch) -> (batch, steps', ch)."""

    rank, mode = 1, "max"


@LAYERS.register()
class MaxPooling2D(BasePooling):
    """Max over ``pool_size`` windows: (batch, h, w, ch) -> (batch, h', w', ch).

    Example:
        >>> lamina.layers.MaxPooling2D((2, 2))   # halves height and width
    """

    rank, mode = 2, "max"

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None,
                 name=None, trainable=True, dtype=None, input_shape=None):
        super().__init__(pool_size, strides, padding, data_format, name, trainable, dtype,
                         input_shape)


@LAYERS.register()
class AveragePooling1D(BasePooling):
    """Mean over windows of ``pool_size`` steps."""

    rank, mode = 1, "average"


@LAYERS.register()
class AveragePooling2D(BasePooling):
    """Mean over ``pool_size`` windows (padded cells not counted)."""

    rank, mode = 2, "average"

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None,
                 name=None, trainable=True, dtype=None, input_shape=None):
        super().__init__(pool_size, strides, padding, data_format, name, trainable, dtype,
                         input_shape)


# ------------------------------------------------------------------ global pooling
class BaseGlobalPooling(Layer):
    """Reduces every spatial axis: (batch, *spatial, ch) -> (batch, ch), or keeps them as
    size-1 axes with ``keepdims=True``."""

    rank = 2

    def __init__(self, data_format=None, keepdims=False, name=None, trainable=True,
                 dtype=None, input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        self.data_format = check_data_format(self, data_format)
        self.keepdims = bool(keepdims)
        self.input_spec = InputSpec(ndim=self.rank + 2)
        self._axes = tuple(range(1, self.rank + 1))

    def compute_output_shape(self, input_shape):
        if self.keepdims:
            return (input_shape[0],) + (1,) * self.rank + (input_shape[-1],)
        return (input_shape[0], input_shape[-1])

    def compute_mask(self, inputs, mask=None):
        return None

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format,
                "keepdims": self.keepdims}


class _GlobalAverage(BaseGlobalPooling):
    def call(self, inputs):
        return ops.mean(inputs, axis=self._axes, keepdims=self.keepdims)


class _GlobalMax(BaseGlobalPooling):
    def call(self, inputs):
        return ops.max(inputs, axis=self._axes, keepdims=self.keepdims)


@LAYERS.register()
class GlobalAveragePooling1D(BaseGlobalPooling):
    """Mean over time: (batch, steps, ch) -> (batch, ch). With a mask (batch, steps),
    only the unmasked steps are averaged."""

    rank = 1
    supports_masking = True

    def call(self, inputs, mask=None):
        if mask is None:
            return ops.mean(inputs, axis=1, keepdims=self.keepdims)
        weights = ops.expand_dims(ops.cast(mask, inputs.dtype), -1)
        total = ops.sum(inputs * weights, axis=1, keepdims=self.keepdims)
        count = ops.maximum(ops.sum(weights, axis=1, keepdims=self.keepdims), 1.0)
        return total / count


@LAYERS.register()
class GlobalAveragePooling2D(_GlobalAverage):
    """Mean over height and width: (batch, h, w, ch) -> (batch, ch)."""

    rank = 2


@LAYERS.register()
class GlobalMaxPooling1D(_GlobalMax):
    """Max over time: (batch, steps, ch) -> (batch, ch)."""

    rank = 1


@LAYERS.register()
class GlobalMaxPooling2D(_GlobalMax):
    """Max over height and width: (batch, h, w, ch) -> (batch, ch)."""

    rank = 2

"""Adaptive pooling layers: AdaptiveAveragePooling1D/2D/3D and AdaptiveMaxPooling1D/2D/3D
(Keras 3), which pool any spatial size to a fixed ``output_size`` (see
:func:`lamina.ops.adaptive_average_pool` for the bins).

Example:
    >>> layers.AdaptiveAveragePooling2D(7)(np.ones((2, 64, 48, 3))).shape
    (2, 7, 7, 3)
"""

from ..backends import ops
from .arguments import check_data_format, positive_tuple
from .base import LAYERS, InputSpec, Layer
from .channels import shape_channels_last


class BaseAdaptivePooling(Layer):
    """What the six adaptive pooling layers share. Subclasses set ``rank`` (spatial axes)
    and ``pool`` (the op).

    Args:
        output_size: bins per spatial axis, an int (every axis) or a tuple of ``rank``.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
    """

    rank = 2
    pool = staticmethod(ops.adaptive_average_pool)

    def __init__(self, output_size, data_format=None, name=None, trainable=True, dtype=None,
                 input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        self.output_size = positive_tuple(self, output_size, self.rank, "output_size")
        self.data_format = check_data_format(self, data_format)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def call(self, inputs):
        return self.pool(inputs, self.output_size, data_format=self.data_format)

    def compute_output_shape(self, input_shape):
        return shape_channels_last(
            self, input_shape, lambda shape: (shape[0], *self.output_size, shape[-1]))

    def get_config(self):
        return {**super().get_config(), "output_size": list(self.output_size),
                "data_format": self.data_format}


class _AdaptiveMax(BaseAdaptivePooling):
    pool = staticmethod(ops.adaptive_max_pool)


@LAYERS.register()
class AdaptiveAveragePooling1D(BaseAdaptivePooling):
    """Mean over ``output_size`` adaptive bins of the steps: (batch, steps, ch) ->
    (batch, output_size, ch)."""

    rank = 1


@LAYERS.register()
class AdaptiveAveragePooling2D(BaseAdaptivePooling):
    """Mean over adaptive bins of height and width: (batch, h, w, ch) ->
    (batch, *output_size, ch)."""

    rank = 2


@LAYERS.register()
class AdaptiveAveragePooling3D(BaseAdaptivePooling):
    """Mean over adaptive bins of the three spatial axes: (batch, d1, d2, d3, ch) ->
    (batch, *output_size, ch)."""

    rank = 3


@LAYERS.register()
class AdaptiveMaxPooling1D(_AdaptiveMax):
    """Max over ``output_size`` adaptive bins of the steps: (batch, steps, ch) ->
    (batch, output_size, ch)."""

    rank = 1


@LAYERS.register()
class AdaptiveMaxPooling2D(_AdaptiveMax):
    """Max over adaptive bins of height and width: (batch, h, w, ch) ->
    (batch, *output_size, ch)."""

    rank = 2


@LAYERS.register()
class AdaptiveMaxPooling3D(_AdaptiveMax):
    """Max over adaptive bins of the three spatial axes: (batch, d1, d2, d3, ch) ->
    (batch, *output_size, ch)."""

    rank = 3

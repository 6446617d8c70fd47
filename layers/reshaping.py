"""Spatial reshaping layers: UpSampling1D/2D/3D, ZeroPadding1D/2D/3D, Cropping1D/2D/3D.

Each computes channels-last; ``data_format="channels_first"`` inputs (where Keras has the
argument) are transposed around the computation.
"""

import numpy as np

from ..backends import ops, state
from ..backends.ops.core import xp
from .arguments import check_data_format, is_int, layer_error, positive_tuple
from .base import LAYERS, InputSpec, Layer
from .channels import run_channels_last, shape_channels_last


def pairs(layer, value, rank, arg_name):
    """Keras' spatial amounts as ``rank`` (before, after) pairs of non-negative ints.

    Accepts an int (same everywhere), ``rank`` ints (symmetric per axis; for rank 1 a
    single ``(before, after)`` pair), or ``rank`` pairs.
    """
    def bad():
        return layer_error(layer, f"needs {arg_name} to be a non-negative int, a tuple of "
                                  f"{rank if rank > 1 else 2} ints or a tuple of {rank} "
                                  f"(before, after) pairs, got {value!r}")

    if is_int(value):
        result = ((value, value),) * rank
    else:
        try:
            items = tuple(value)
        except TypeError:
            raise bad() from None
        if rank == 1 and len(items) == 2 and all(is_int(v) for v in items):
            result = (items,)
        elif len(items) == rank and all(is_int(v) for v in items):
            result = tuple((v, v) for v in items)
        elif len(items) == rank:
            try:
                result = tuple(tuple(item) for item in items)
            except TypeError:
                raise bad() from None
        else:
            raise bad()
    if not all(len(p) == 2 and all(is_int(v) and v >= 0 for v in p) for p in result):
        raise bad()
    return tuple((int(a), int(b)) for a, b in result)


# ------------------------------------------------------------------ up-sampling
class BaseUpSampling(Layer):
    """Repeats every spatial cell ``size`` times along each spatial axis.

    ``has_data_format``: whether Keras' class takes ``data_format`` (a config key).
    """

    rank = 2
    has_data_format = True

    def __init__(self, size, data_format, interpolation, name, trainable, dtype, input_shape):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        self.size = positive_tuple(self, size, self.rank, "size")
        self.data_format = check_data_format(self, data_format)
        if interpolation not in ("nearest", "bilinear"):
            raise layer_error(self, f"supports interpolation 'nearest' or 'bilinear', got "
                                    f"{interpolation!r}")
        self.interpolation = interpolation
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def call(self, inputs):
        return run_channels_last(self, inputs, self._upsample)

    def _upsample(self, inputs):
        if self.interpolation == "bilinear":
            return self._bilinear(inputs)
        # (b, n1, n2, c) -> (b, n1, 1, n2, 1, c) * ones(1, 1, s1, 1, s2, 1) -> merge axes.
        shape = inputs.shape
        spread, ones_shape, out_shape = [shape[0]], [1], [shape[0]]
        for length, factor in zip(shape[1:-1], self.size):
            spread += [length, 1]
            ones_shape += [1, factor]
            out_shape.append(length * factor)
        spread.append(shape[-1])
        ones_shape.append(1)
        out_shape.append(shape[-1])
        ones = xp().ones(tuple(ones_shape), dtype=inputs.dtype)
        return ops.reshape(ops.multiply(ops.reshape(inputs, tuple(spread)), ones),
                           tuple(out_shape))

    def _bilinear(self, inputs):
        """Half-pixel-centre bilinear resize (TensorFlow/JAX ``resize``), one matmul per
        spatial axis with a (new, old) interpolation matrix."""
        outputs = inputs
        ndim = len(inputs.shape)
        for axis, factor in zip(range(1, ndim - 1), self.size):
            length = outputs.shape[axis]
            matrix = _bilinear_matrix(length, length * factor, inputs.dtype)
            order = [a for a in range(ndim) if a != axis] + [axis]
            moved = ops.transpose(outputs, order)
            resized = ops.matmul(moved, matrix.T)
            inverse = list(range(ndim - 1))
            inverse.insert(axis, ndim - 1)
            outputs = ops.transpose(resized, inverse)
        return outputs

    def compute_output_shape(self, input_shape):
        def upsampled(shape):
            spatial = [None if n is None else n * s for n, s in zip(shape[1:-1], self.size)]
            return (shape[0], *spatial, shape[-1])

        return shape_channels_last(self, input_shape, upsampled)

    def get_config(self):
        size = self.size[0] if self.rank == 1 else list(self.size)
        config = {**super().get_config(), "size": size}
        if self.has_data_format:
            config["data_format"] = self.data_format
        if self.rank == 2:
            config["interpolation"] = self.interpolation
        return config


def _bilinear_matrix(old, new, dtype):
    """(new, old) weights of linear interpolation at half-pixel centres, edges clamped."""
    centres = np.clip((np.arange(new) + 0.5) * (old / new) - 0.5, 0, old - 1)
    low = np.floor(centres).astype(np.int64)
    high = np.minimum(low + 1, old - 1)
    frac = centres - low
    matrix = np.zeros((new, old))
    rows = np.arange(new)
    np.add.at(matrix, (rows, low), 1 - frac)
    np.add.at(matrix, (rows, high), frac)
    return state.backend().asarray(matrix, dtype)


@LAYERS.register()
class UpSampling1D(BaseUpSampling):
    """Repeats each time step ``size`` times: (batch, steps, ch) -> (batch, steps*size, ch)."""

    rank = 1
    has_data_format = False

    def __init__(self, size=2, name=None, trainable=True, dtype=None, input_shape=None):
        super().__init__(size, None, "nearest", name, trainable, dtype, input_shape)


@LAYERS.register()
class UpSampling2D(BaseUpSampling):
    """Scales height and width by ``size`` with ``"nearest"`` (repeat) or ``"bilinear"``
    interpolation: (batch, h, w, ch) -> (batch, h*size[0], w*size[1], ch)."""

    rank = 2

    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", name=None,
                 trainable=True, dtype=None, input_shape=None):
        super().__init__(size, data_format, interpolation, name, trainable, dtype, input_shape)


@LAYERS.register()
class UpSampling3D(BaseUpSampling):
    """Repeats every cell ``size`` times along the three spatial axes (nearest)."""

    rank = 3

    def __init__(self, size=(2, 2, 2), data_format=None, name=None, trainable=True,
                 dtype=None, input_shape=None):
        super().__init__(size, data_format, "nearest", name, trainable, dtype, input_shape)


# ------------------------------------------------------------------ padding and cropping
class BaseSpatialAmounts(Layer):
    """Shared by ZeroPadding and Cropping: ``rank`` (before, after) amounts.

    ``has_data_format``: whether Keras' class takes ``data_format`` (a config key).
    """

    rank = 2
    argument = "padding"
    has_data_format = True

    def __init__(self, amounts, data_format, name, trainable, dtype, input_shape):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        setattr(self, self.argument, pairs(self, amounts, self.rank, self.argument))
        self.data_format = check_data_format(self, data_format)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def _amounts(self):
        return getattr(self, self.argument)

    def get_config(self):
        amounts = self._amounts()
        value = list(amounts[0]) if self.rank == 1 else [list(p) for p in amounts]
        config = {**super().get_config(), self.argument: value}
        if self.has_data_format:
            config["data_format"] = self.data_format
        return config


class BaseZeroPadding(BaseSpatialAmounts):
    argument = "padding"

    def call(self, inputs):
        return run_channels_last(
            self, inputs, lambda x: ops.pad(x, ((0, 0),) + self.padding + ((0, 0),)))

    def compute_output_shape(self, input_shape):
        def padded(shape):
            spatial = [None if n is None else n + a + b
                       for n, (a, b) in zip(shape[1:-1], self.padding)]
            return (shape[0], *spatial, shape[-1])

        return shape_channels_last(self, input_shape, padded)


class BaseCropping(BaseSpatialAmounts):
    argument = "cropping"

    def build(self, input_shape):
        self.compute_output_shape(input_shape)
        self.built = True

    def call(self, inputs):
        self.compute_output_shape(inputs.shape)
        return run_channels_last(self, inputs, self._crop)

    def _crop(self, inputs):
        index = (slice(None),) + tuple(slice(a, n - b) for (a, b), n in
                                       zip(self.cropping, inputs.shape[1:-1]))
        return ops.getitem(inputs, index)

    def compute_output_shape(self, input_shape):
        return shape_channels_last(self, input_shape, self._cropped_shape)

    def _cropped_shape(self, input_shape):
        spatial = []
        for axis, (n, (a, b)) in enumerate(zip(input_shape[1:-1], self.cropping)):
            if n is not None and n - a - b <= 0:
                raise layer_error(self, f"cannot crop {(a, b)} from spatial axis {axis + 1} "
                                        f"of its input of shape {tuple(input_shape)}")
            spatial.append(None if n is None else n - a - b)
        return (input_shape[0], *spatial, input_shape[-1])


@LAYERS.register()
class ZeroPadding1D(BaseZeroPadding):
    """Adds zeros at the start and end of the time axis (``padding`` int or pair)."""

    rank = 1

    def __init__(self, padding=1, data_format=None, name=None, trainable=True, dtype=None,
                 input_shape=None):
        super().__init__(padding, data_format, name, trainable, dtype, input_shape)


@LAYERS.register()
class ZeroPadding2D(BaseZeroPadding):
    """Adds rows and columns of zeros around the image.

    ``padding``: an int (all sides), ``(symmetric_h, symmetric_w)``, or
    ``((top, bottom), (left, right))``.
    """

    rank = 2

    def __init__(self, padding=(1, 1), data_format=None, name=None, trainable=True, dtype=None,
                 input_shape=None):
        super().__init__(padding, data_format, name, trainable, dtype, input_shape)


@LAYERS.register()
class ZeroPadding3D(BaseZeroPadding):
    """Adds zeros around the three spatial axes.

    ``padding``: an int, three symmetric ints or three (before, after) pairs.
    """

    rank = 3

    def __init__(self, padding=((1, 1), (1, 1), (1, 1)), data_format=None, name=None,
                 trainable=True, dtype=None, input_shape=None):
        super().__init__(padding, data_format, name, trainable, dtype, input_shape)


@LAYERS.register()
class Cropping1D(BaseCropping):
    """Removes ``cropping = (start, end)`` steps from the time axis."""

    rank = 1
    has_data_format = False

    def __init__(self, cropping=(1, 1), name=None, trainable=True, dtype=None,
                 input_shape=None):
        super().__init__(cropping, None, name, trainable, dtype, input_shape)


@LAYERS.register()
class Cropping2D(BaseCropping):
    """Removes rows and columns at the borders.

    ``cropping``: an int, ``(symmetric_h, symmetric_w)`` or ``((top, bottom), (left, right))``.
    """

    rank = 2

    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, name=None, trainable=True,
                 dtype=None, input_shape=None):
        super().__init__(cropping, data_format, name, trainable, dtype, input_shape)


@LAYERS.register()
class Cropping3D(BaseCropping):
    """Removes cells at the borders of the three spatial axes.

    ``cropping``: an int, three symmetric ints or three (before, after) pairs.
    """

    rank = 3

    def __init__(self, cropping=((1, 1), (1, 1), (1, 1)), data_format=None, name=None,
                 trainable=True, dtype=None, input_shape=None):
        super().__init__(cropping, data_format, name, trainable, dtype, input_shape)

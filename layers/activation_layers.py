"""Activation layers with arguments: ReLU, LeakyReLU, PReLU (a learned slope), ELU and
Softmax (with an optional mask), as Keras 3's ``keras.layers`` classes."""

from ..backends import ops
from ..backends.ops.core import index_data
from .options import weight_options
from .arguments import int_or_int_list, is_int, layer_error
from .base import LAYERS, InputSpec, Layer


def _number(layer, value, arg_name, allow_none=False):
    """``value`` as a float (or None when allowed); a ValueError naming the layer for
    anything else."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) and not hasattr(
            value, "__float__"):
        raise layer_error(layer, f"needs {arg_name} to be a number, got {value!r}")
    return float(value)


def _non_negative(layer, value, arg_name, allow_none=False):
    number = _number(layer, value, arg_name, allow_none)
    if number is not None and not number >= 0.0:
        raise layer_error(layer, f"needs {arg_name} >= 0, got {value!r}")
    return number


class _Elementwise(Layer):
    """An activation layer: same output shape, passes masks on."""

    supports_masking = True

    def compute_output_shape(self, input_shape):
        return input_shape


@LAYERS.register()
class ReLU(_Elementwise):
    """Rectified linear unit with Keras' options:
    ``f(x) = max_value`` for ``x >= max_value``, ``x`` for ``threshold <= x < max_value``,
    ``negative_slope * (x - threshold)`` otherwise.

    Args:
        max_value: the largest output (None: unbounded), >= 0.
        negative_slope: slope below the threshold, >= 0.
        threshold: where the activation starts, >= 0.
    """

    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, name=None,
                 trainable=True, dtype=None, input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        self.max_value = _non_negative(self, max_value, "max_value", allow_none=True)
        self.negative_slope = _non_negative(self, negative_slope, "negative_slope")
        self.threshold = _non_negative(self, threshold, "threshold")

    def call(self, inputs):
        slope, max_value, threshold = self.negative_slope, self.max_value, self.threshold
        if max_value is None and threshold == 0.0:
            return ops.leaky_relu(inputs, slope) if slope else ops.relu(inputs)
        # Keras' composition, term for term (activations.relu).
        negative_part = ops.relu(threshold - inputs) if slope else None
        if threshold != 0.0:
            outputs = ops.where(index_data(inputs) > threshold, inputs, 0.0)
        elif max_value == 6.0:
            outputs = ops.relu6(inputs)
            max_value = None
        else:
            outputs = ops.relu(inputs)
        if max_value is not None:
            outputs = ops.clip(outputs, 0.0, max_value)
        if slope:
            outputs = outputs - slope * negative_part
        return outputs

    def get_config(self):
        return {**super().get_config(), "max_value": self.max_value,
                "negative_slope": self.negative_slope, "threshold": self.threshold}


@LAYERS.register()
class LeakyReLU(_Elementwise):
    """``x`` for ``x > 0``, ``negative_slope * x`` otherwise.

    Args:
        negative_slope: slope for negative inputs, >= 0 (Keras' default 0.3).
        alpha: Keras' deprecated name of ``negative_slope`` (legacy configs); when given
            it replaces ``negative_slope``.
    """

    def __init__(self, negative_slope=0.3, alpha=None, name=None, trainable=True, dtype=None,
                 input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        if alpha is not None:
            negative_slope = alpha
        self.negative_slope = _non_negative(self, negative_slope, "negative_slope")

    def call(self, inputs):
        return ops.leaky_relu(inputs, self.negative_slope)

    def get_config(self):
        return {**super().get_config(), "negative_slope": self.negative_slope}


@LAYERS.register()
class PReLU(_Elementwise):
    """Parametric ReLU: ``x`` for ``x > 0``, ``alpha * x`` otherwise, with ``alpha``
    learned per input position (``input_shape[1:]``), shared along ``shared_axes``.

    Args:
        alpha_initializer, alpha_regularizer, alpha_constraint: options of ``alpha``
            (Keras' default initializer ``"Zeros"``).
        shared_axes: an int or a list of the (1-based, non-batch) axes along which
            ``alpha`` is shared, e.g. ``[1, 2]`` for one slope per channel of an image.
    Weights: ``alpha`` (input_shape[1:], with 1 on the shared axes).
    """

    def __init__(self, alpha_initializer="Zeros", alpha_regularizer=None,
                 alpha_constraint=None, shared_axes=None, name=None, trainable=True,
                 dtype=None, input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        weight_options.store(self, "alpha", alpha_initializer, alpha_regularizer,
                             alpha_constraint)
        if shared_axes is None:
            self.shared_axes = None
        else:
            axes = list(shared_axes) if isinstance(shared_axes, (list, tuple)) \
                else [shared_axes]
            if not all(is_int(a) and a >= 1 for a in axes):
                raise layer_error(self, f"needs shared_axes to be positive (non-batch) axis "
                                        f"numbers, got {shared_axes!r}")
            self.shared_axes = [int(a) for a in axes]
        self.alpha = None

    def build(self, input_shape):
        rank = len(input_shape)
        shared = self.shared_axes or []
        if any(a >= rank for a in shared):
            raise layer_error(self, f"has shared_axes={self.shared_axes} out of range for "
                                    f"an input of shape {tuple(input_shape)}")
        shape = tuple(1 if axis in shared else input_shape[axis] for axis in range(1, rank))
        if None in shape:
            raise layer_error(self, f"needs known sizes on the axes it does not share, got "
                                    f"input shape {tuple(input_shape)} and shared_axes="
                                    f"{self.shared_axes}")
        self.alpha = self.add_weight(shape, self.alpha_initializer,
                                     regularizer=self.alpha_regularizer,
                                     constraint=self.alpha_constraint, name="alpha")
        self.input_spec = InputSpec(ndim=rank, axes={axis: input_shape[axis]
                                                     for axis in range(1, rank)
                                                     if axis not in shared})
        self.built = True

    def call(self, inputs):
        return ops.relu(inputs) - self.alpha * ops.relu(-inputs)

    def get_config(self):
        return {**super().get_config(), **weight_options.config(self, "alpha"),
                "shared_axes": self.shared_axes}


@LAYERS.register()
class ELU(_Elementwise):
    """Exponential linear unit: ``x`` for ``x > 0``, ``alpha * (exp(x) - 1)`` otherwise.

    Args:
        alpha: the negative saturation value (Keras' default 1.0).
    """

    def __init__(self, alpha=1.0, name=None, trainable=True, dtype=None, input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        self.alpha = _number(self, alpha, "alpha")

    def call(self, inputs):
        return ops.elu(inputs, self.alpha)

    def get_config(self):
        return {**super().get_config(), "alpha": self.alpha}


_LARGE_NEGATIVE = {"float16": -3e4}


@LAYERS.register()
class Softmax(_Elementwise):
    """Softmax over ``axis`` (an int, or a list of axes normalized together).

    Call arguments:
        mask: optional, broadcastable to the inputs (each mask axis 1 or the input's
            size); True (or > 0.5) keeps a position. Masked positions get probability 0,
            the others share the whole mass (Keras' ``-1e9`` logit, then zeroed).
    """

    def __init__(self, axis=-1, name=None, trainable=True, dtype=None, input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        self.axis = int_or_int_list(self, axis, "axis")

    def call(self, inputs, mask=None):
        keep = None
        if mask is not None:
            keep = self._mask(inputs, mask)
            large_negative = _LARGE_NEGATIVE.get(str(inputs.dtype), -1e9)
            inputs = ops.where(keep, inputs, large_negative)
        if isinstance(self.axis, list) and len(self.axis) > 1:
            outputs = self._multi_axis_softmax(inputs)
        else:
            axis = self.axis[0] if isinstance(self.axis, list) else self.axis
            outputs = ops.softmax(inputs, axis=axis)
        if keep is not None:
            outputs = ops.where(keep, outputs, 0.0)
        return outputs

    def _multi_axis_softmax(self, inputs):
        axes = tuple(self.axis)
        shifted = inputs - ops.max(inputs, axis=axes, keepdims=True)
        exps = ops.exp(shifted)
        return exps / ops.sum(exps, axis=axes, keepdims=True)

    def _mask(self, inputs, mask):
        data = index_data(mask)
        shape, mask_shape = tuple(inputs.shape), tuple(data.shape)
        fits = len(mask_shape) <= len(shape) and all(
            m in (1, i) for m, i in zip(mask_shape[::-1], shape[::-1]))
        if not fits:
            raise layer_error(self, f"needs a mask broadcastable to its inputs (each mask "
                                    f"axis 1 or the input's size), got inputs.shape={shape}, "
                                    f"mask.shape={mask_shape}")
        return data if data.dtype == bool else data > 0.5

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}

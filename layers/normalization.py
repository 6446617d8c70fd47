"""Normalization layers: BatchNormalization and LayerNormalization (last axis),
GroupNormalization (any channel axis), UnitNormalization and RMSNormalization."""

from ..backends import ops, replica, state
from ..backends.autocast import autocast_scope
from ..backends.autodiff import record
from ..backends.ops.core import data_of
from .options import initializers as initializers_module
from .options import weight_options
from .arguments import int_or_int_list, is_int, layer_error
from .base import LAYERS, InputSpec, Layer


def _last_axis_only(layer, axis):
    """Keras' ``axis`` (int or one-element list) as an int; only the last axis is
    implemented, checked against the input rank in ``build``."""
    value = axis
    if isinstance(axis, (list, tuple)) and len(axis) == 1:
        value = axis[0]
    if not hasattr(value, "__index__") or isinstance(value, bool):
        raise layer_error(layer, f"supports only the last axis (axis=-1), got axis={axis!r}")
    return int(value)


def _check_axis_is_last(layer, axis, input_shape):
    rank = len(input_shape)
    if axis not in (-1, rank - 1):
        raise layer_error(layer, f"supports only the last axis (axis=-1), got axis={axis} "
                                 f"for input of shape {tuple(input_shape)}")
    if input_shape[-1] is None:
        raise layer_error(layer, f"needs a known last dimension, got input shape "
                                 f"{tuple(input_shape)}")
    return input_shape[-1]


class BaseNormalization(Layer):
    """``gamma`` / ``beta`` handling shared by the normalization layers."""

    supports_masking = True

    def _init_affine(self, epsilon, center, scale, beta_initializer, gamma_initializer,
                     beta_regularizer, gamma_regularizer, beta_constraint, gamma_constraint):
        """Stores the options of ``gamma`` and ``beta`` (the caller sets ``self.axis``)."""
        if not epsilon > 0:
            raise layer_error(self, f"needs epsilon > 0, got {epsilon!r}")
        self.epsilon = float(epsilon)
        self.center, self.scale = bool(center), bool(scale)
        weight_options.store(self, "beta", beta_initializer, beta_regularizer, beta_constraint)
        weight_options.store(self, "gamma", gamma_initializer, gamma_regularizer,
                             gamma_constraint)
        self.gamma = self.beta = None
        self.input_spec = InputSpec(min_ndim=2)

    def _build_affine(self, input_shape, scale=None, center=None):
        """Creates ``gamma`` then ``beta`` (Keras' order); returns the channel count."""
        channels = _check_axis_is_last(self, self.axis, input_shape)
        self._add_affine_weights(channels, scale, center)
        self.input_spec = InputSpec(min_ndim=2, axes={-1: channels})
        return channels

    def _add_affine_weights(self, channels, scale=None, center=None):
        """``gamma`` then ``beta`` (Keras' order), each (channels,), as configured."""
        scale = self.scale if scale is None else scale
        center = self.center if center is None else center
        if scale:
            self.gamma = self.add_weight((channels,), self.gamma_initializer,
                                         regularizer=self.gamma_regularizer,
                                         constraint=self.gamma_constraint, name="gamma")
        if center:
            self.beta = self.add_weight((channels,), self.beta_initializer,
                                        regularizer=self.beta_regularizer,
                                        constraint=self.beta_constraint, name="beta")

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "axis": self.axis, "epsilon": self.epsilon,
                "center": self.center, "scale": self.scale,
                **weight_options.config(self, "beta", "gamma")}


def _summed(xp, values, count):
    """``(sum over processes of values, of count)``, in one collective."""
    packed = xp.empty(values.size + 1, dtype=values.dtype)
    packed[:-1] = values
    packed[-1] = count
    packed = replica.cross_replica_sum(packed)
    return packed[:-1], packed[-1]


def synchronized_batch_normalization(x, gamma, beta, epsilon):
    """Training-mode batch norm whose statistics cover the global batch of a
    data-parallel step: the moments are summed over the processes (two collectives
    forward, one backward), so every process normalizes with, and moves its moving
    statistics by, the single-process numbers. Returns (y Tensor, mean, variance).

    The backward sums ``g`` and ``g * x_hat`` over the processes with this process'
    gradients scaled by its share of the batch (the weight its gradients get in the
    average), so the input gradient is the single-process one in this process' units;
    ``gamma``/``beta`` get their local sums, which the gradient average combines.
    """
    xp = state.backend().xp
    a = data_of(x)
    axes = tuple(range(a.ndim - 1))
    local = a.size // a.shape[-1]
    total, count = _summed(xp, a.sum(axis=axes), local)
    mean = total / count
    centered = a - mean
    squares, _ = _summed(xp, xp.square(centered).sum(axis=axes), local)
    variance = squares / count
    inv_std = 1.0 / xp.sqrt(variance + epsilon)
    normalized = centered * inv_std
    g_data = None if gamma is None else data_of(gamma)
    y = normalized * g_data if g_data is not None else normalized.copy()
    if beta is not None:
        y += data_of(beta)
    share = replica.share_fraction()

    def backward(g, needs):
        grad_beta = g.sum(axis=axes)
        grad_gamma = (g * normalized).sum(axis=axes)
        both, _ = _summed(xp, xp.concatenate([grad_beta, grad_gamma]) * share, 0)
        channels = grad_beta.size
        scale = inv_std * g_data if g_data is not None else inv_std
        correction = both[:channels] / count + normalized * (both[channels:] / count)
        grad_x = (g - correction / share) * scale if share else g * 0
        return grad_x, grad_gamma, grad_beta

    output = record(y.astype(a.dtype, copy=False), (x, gamma, beta), backward,
                    "synchronized_batch_normalization")
    return output, mean, variance


@LAYERS.register()
class BatchNormalization(BaseNormalization):
    """Normalizes each channel (last axis) with batch statistics while training and with
    moving statistics at inference.

    Training (``training=True`` and the layer trainable): ``y = (x - mean_batch) /
    sqrt(var_batch + epsilon) * gamma + beta``, then ``moving = moving * momentum +
    batch * (1 - momentum)`` (biased batch variance, as Keras). Inference, or a frozen
    layer (``trainable=False``, as Keras): the same formula with the moving statistics.

    Args:
        axis: only ``-1`` (channels-last) is supported.
        momentum, epsilon: Keras' defaults 0.99 and 1e-3.
        center, scale: learn ``beta`` / ``gamma``.
        synchronized: in data-parallel training (``lamina.distribution``), compute the
            batch statistics over the global batch of every process (their sums are
            reduced across processes) instead of each process' own rows. Outside such
            training it changes nothing.
    Weights: ``gamma``, ``beta`` (trainable), ``moving_mean``, ``moving_variance``
    (non-trainable), each (channels,).
    """

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones",
                 moving_mean_initializer="zeros", moving_variance_initializer="ones",
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, synchronized=False, renorm=False,
                 renorm_clipping=None, renorm_momentum=0.99, name=None, trainable=True,
                 dtype=None, input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        self.axis = _last_axis_only(self, axis)
        self._init_affine(epsilon, center, scale, beta_initializer, gamma_initializer,
                          beta_regularizer, gamma_regularizer, beta_constraint,
                          gamma_constraint)
        if not 0.0 <= momentum <= 1.0:
            raise layer_error(self, f"needs momentum in [0, 1], got {momentum!r}")
        if renorm:
            raise layer_error(self, "does not support renorm=True")
        self.momentum = float(momentum)
        self.moving_mean_initializer = initializers_module.get(moving_mean_initializer)
        self.moving_variance_initializer = initializers_module.get(moving_variance_initializer)
        self.synchronized = bool(synchronized)
        self.renorm, self.renorm_clipping, self.renorm_momentum = False, renorm_clipping, \
            renorm_momentum

    def build(self, input_shape):
        channels = self._build_affine(input_shape)
        self.moving_mean = self.add_weight((channels,), self.moving_mean_initializer,
                                           trainable=False, name="moving_mean")
        self.moving_variance = self.add_weight((channels,),
                                               self.moving_variance_initializer,
                                               trainable=False, name="moving_variance")
        self.built = True

    def _frozen(self):
        """True when this layer or a model containing it is not trainable (then it runs in
        inference mode, as Keras)."""
        if not self.trainable:
            return True
        for weight in (self.gamma, self.beta):
            if weight is not None:
                return not weight.requires_grad and weight.trainable
        return False

    def call(self, inputs, training=None, mask=None):
        if inputs.dtype.kind != "f":    # integer images: normalized in floats, as Keras'
            inputs = ops.cast(inputs, self._compute_dtype)
        if inputs.dtype.itemsize < 4:   # float16 (mixed precision): normalized in float32
            with autocast_scope(None):  # as Keras, and the weights read as float32
                outputs = self.call(ops.cast(inputs, "float32"), training)
            return ops.cast(outputs, inputs.dtype)
        if training and not self._frozen():
            normalize = synchronized_batch_normalization if self.synchronized \
                and replica.current_share() is not None else ops.batch_normalization_train
            outputs, mean, variance = normalize(inputs, self.gamma, self.beta, self.epsilon)
            self._update_moving(self.moving_mean, mean)
            self._update_moving(self.moving_variance, variance)
            return outputs
        inv_std = 1.0 / ops.sqrt(self.moving_variance.data + self.epsilon)
        multiplier = inv_std if self.gamma is None else ops.multiply(self.gamma, inv_std)
        offset = ops.negative(ops.multiply(self.moving_mean.data, multiplier))
        if self.beta is not None:
            offset = ops.add(offset, self.beta)
        return ops.add(ops.multiply(inputs, multiplier), offset)

    def _update_moving(self, variable, batch_value):
        data = variable.data
        data *= self.momentum
        data += (1.0 - self.momentum) * batch_value.astype(data.dtype, copy=False)

    def get_config(self):
        return {**super().get_config(), "momentum": self.momentum,
                "moving_mean_initializer":
                    initializers_module.serialize(self.moving_mean_initializer),
                "moving_variance_initializer":
                    initializers_module.serialize(self.moving_variance_initializer),
                "synchronized": self.synchronized, "renorm": self.renorm,
                "renorm_clipping": self.renorm_clipping,
                "renorm_momentum": self.renorm_momentum}


@LAYERS.register()
class LayerNormalization(BaseNormalization):
    """Normalizes each sample over its last axis: ``y = (x - mean) / sqrt(var + epsilon) *
    gamma + beta`` (biased variance, ``epsilon=1e-3`` as Keras). With
    ``rms_scaling=True`` (Keras' formula: the centred variance, not the mean square):
    ``y = x / sqrt(var + epsilon) * gamma``, no ``beta``, ``center``/``scale`` ignored.

    Weights: ``gamma``, ``beta``, each (features,).
    """

    def __init__(self, axis=-1, epsilon=1e-3, center=True, scale=True, rms_scaling=False,
                 beta_initializer="zeros", gamma_initializer="ones", beta_regularizer=None,
                 gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                 name=None, trainable=True, dtype=None, input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        self.rms_scaling = bool(rms_scaling)
        self.axis = _last_axis_only(self, axis)
        self._init_affine(epsilon, center, scale, beta_initializer, gamma_initializer,
                          beta_regularizer, gamma_regularizer, beta_constraint,
                          gamma_constraint)

    def build(self, input_shape):
        if self.rms_scaling:
            self._build_affine(input_shape, scale=True, center=False)
        else:
            self._build_affine(input_shape)
        self.built = True

    def call(self, inputs):
        if inputs.dtype.kind != "f":    # integer input: normalized in floats, as Keras'
            inputs = ops.cast(inputs, self._compute_dtype)
        if self.rms_scaling:
            variance = ops.var(inputs, axis=-1, keepdims=True)
            outputs = inputs / ops.sqrt(variance + self.epsilon)
            return outputs if self.gamma is None else outputs * self.gamma
        return ops.layer_normalization(inputs, self.gamma, self.beta, self.epsilon)

    def get_config(self):
        return {**super().get_config(), "rms_scaling": self.rms_scaling}


@LAYERS.register()
class GroupNormalization(BaseNormalization):
    """Splits the channels (``axis``) into ``groups`` groups and normalizes each sample
    over every other non-batch axis within each group: ``y = (x - mean) / sqrt(var +
    epsilon) * gamma + beta`` (biased variance).

    Args:
        groups: number of groups (must divide the channels), or -1 for one group per
            channel (instance normalization; set to the channel count when built, as
            Keras).
        axis: the channel axis (an int).
        epsilon, center, scale, initializers, regularizers, constraints: as
            :class:`LayerNormalization`.
    Weights: ``gamma``, ``beta``, each (channels,).
    """

    def __init__(self, groups=32, axis=-1, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", beta_regularizer=None,
                 gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                 name=None, trainable=True, dtype=None, input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        if not is_int(groups) or (groups <= 0 and groups != -1):
            raise layer_error(self, f"needs groups to be a positive int (or -1 for instance "
                                    f"normalization), got {groups!r}")
        if not is_int(axis):
            raise layer_error(self, f"needs axis to be an int, got {axis!r}")
        self.groups, self.axis = int(groups), int(axis)
        self._init_affine(epsilon, center, scale, beta_initializer, gamma_initializer,
                          beta_regularizer, gamma_regularizer, beta_constraint,
                          gamma_constraint)

    def build(self, input_shape):
        rank = len(input_shape)
        if not -rank <= self.axis < rank or self.axis % rank == 0:
            raise layer_error(self, f"needs axis to be a non-batch axis of its input, got "
                                    f"axis={self.axis} for input of shape "
                                    f"{tuple(input_shape)}")
        channels = input_shape[self.axis]
        if channels is None:
            raise layer_error(self, f"needs a known size on axis {self.axis}, got input "
                                    f"shape {tuple(input_shape)}")
        if self.groups == -1:
            self.groups = channels
        if channels < self.groups or channels % self.groups:
            raise layer_error(self, f"needs groups={self.groups} to divide the {channels} "
                                    f"channels on axis {self.axis}")
        self._add_affine_weights(channels)
        self.input_spec = InputSpec(ndim=rank, axes={self.axis: channels})
        self.built = True

    def call(self, inputs):
        shape = tuple(inputs.shape)
        axis = self.axis % len(shape)
        grouped_shape = shape[:axis] + (self.groups, shape[axis] // self.groups) + \
            shape[axis + 1:]
        grouped = ops.reshape(inputs, grouped_shape)
        reduce = tuple(i for i in range(1, len(grouped_shape)) if i != axis)
        mean = ops.mean(grouped, axis=reduce, keepdims=True)
        variance = ops.var(grouped, axis=reduce, keepdims=True)
        outputs = ops.reshape((grouped - mean) / ops.sqrt(variance + self.epsilon), shape)
        broadcast = [1] * len(shape)
        broadcast[axis] = shape[axis]
        if self.gamma is not None:
            outputs = outputs * ops.reshape(self.gamma, tuple(broadcast))
        if self.beta is not None:
            outputs = outputs + ops.reshape(self.beta, tuple(broadcast))
        return outputs

    def get_config(self):
        return {**super().get_config(), "groups": self.groups}


@LAYERS.register()
class UnitNormalization(Layer):
    """Scales each sample to unit L2 norm over ``axis``: ``x / max(||x||, 1e-12)``
    (Keras' ``ops.normalize`` with ``epsilon=1e-12``).

    Args:
        axis: an int or a list of ints.
    """

    supports_masking = True

    def __init__(self, axis=-1, name=None, trainable=True, dtype=None, input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        self.axis = int_or_int_list(self, axis, "axis")

    def _axes(self, rank):
        axes = self.axis if isinstance(self.axis, list) else [self.axis]
        if any(not -rank <= a < rank for a in axes):
            raise layer_error(self, f"has axis={self.axis} out of bounds for an input of "
                                    f"rank {rank}")
        return tuple(a % rank for a in axes)

    def call(self, inputs):
        axes = self._axes(len(inputs.shape))
        squares = ops.sum(ops.square(inputs), axis=axes, keepdims=True)
        return inputs / ops.sqrt(ops.maximum(squares, 1e-24))

    def compute_output_shape(self, input_shape):
        self._axes(len(input_shape))
        return input_shape

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}


@LAYERS.register()
class RMSNormalization(Layer):
    """Root-mean-square normalization (Zhang & Sennrich, 2019), as
    ``keras.layers.RMSNormalization``: ``y = x / sqrt(mean(x ** 2, axis) + epsilon) *
    scale`` (``ops.rms_normalization``).

    Args:
        axis: an int or a list of ints (the axes of the mean; Keras' config holds the
            sorted list once built).
        epsilon: added to the mean square (default ``1e-6``, as Keras).
    Weights: ``scale`` (ones), of the input's sizes on ``axis``.
    """

    def __init__(self, axis=-1, epsilon=1e-6, name=None, trainable=True, dtype=None,
                 input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        self.axis = int_or_int_list(self, axis, "axis")
        self.epsilon = float(epsilon)
        self._axes = None

    def build(self, input_shape):
        rank = len(input_shape)
        self.axis = sorted(self.axis) if isinstance(self.axis, list) else [self.axis]
        if any(not -rank <= a < rank for a in self.axis):
            raise layer_error(self, f"has axis={self.axis} out of bounds for input of shape "
                                    f"{tuple(input_shape)}")
        self._axes = tuple(a % rank for a in self.axis)
        shape = tuple(input_shape[a] for a in self._axes)
        if any(size is None for size in shape):
            raise layer_error(self, f"needs known sizes on axis {self.axis}, got input shape "
                                    f"{tuple(input_shape)}")
        self.scale = self.add_weight(shape, "ones", name="scale")
        self._broadcast = tuple(input_shape[a] if a in self._axes else 1
                                for a in range(rank))
        self.input_spec = InputSpec(ndim=rank, axes=dict(zip(self._axes, shape)))
        self.built = True

    def call(self, inputs):
        scale = ops.reshape(self.scale, self._broadcast)
        return ops.rms_normalization(inputs, scale=scale, axis=self._axes,
                                     epsilon=self.epsilon)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "axis": self.axis, "epsilon": self.epsilon}

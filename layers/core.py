"""Core layers: Dense, Activation, Dropout, Flatten, Reshape, Permute, RepeatVector,
Identity, Rescaling and Lambda."""

import math

from ..backends import ops
from ..backends.random import SeededStream
from .options import activations as activations_module
from .options import regularizers as regularizers_module
from .options import weight_options
from .arguments import check_data_format, layer_error
from .base import LAYERS, InputSpec, Layer

_FUSED = {"linear", "relu", "sigmoid", "tanh"}


@LAYERS.register()
class Dense(Layer):
    """``activation(inputs @ kernel + bias)`` as one fused op.

    Args:
        units: output features.
        activation: name or callable (``None``: linear).
        use_bias: add a bias vector.
        kernel_initializer, bias_initializer: initializers (Keras defaults).
        kernel_regularizer, bias_regularizer, activity_regularizer: optional penalties.
    Shapes: (..., in) -> (..., units). Weights: ``kernel`` (in, units), ``bias`` (units,).
    """

    def __init__(self, units, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, name=None, trainable=True,
                 dtype=None, input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        if not isinstance(units, int) or isinstance(units, bool) or units <= 0:
            raise ValueError(f"Layer '{self.name}' (Dense) needs a positive int units, "
                             f"got {units!r}")
        self.units = units
        self.activation = activations_module.get(activation)
        self._activation_name = activations_module.serialize(self.activation)
        self.use_bias = use_bias
        weight_options.store(self, "kernel", kernel_initializer, kernel_regularizer,
                             kernel_constraint)
        weight_options.store(self, "bias", bias_initializer, bias_regularizer, bias_constraint)
        self.activity_regularizer = regularizers_module.get(activity_regularizer)
        self.input_spec = InputSpec(min_ndim=2)
        self.supports_masking = True

    def build(self, input_shape):
        features = input_shape[-1]
        if features is None:
            raise ValueError(f"Layer '{self.name}' needs a known last input dimension, "
                             f"got input shape {tuple(input_shape)}")
        self.kernel = self.add_weight((features, self.units), self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint, name="kernel")
        self.bias = (self.add_weight((self.units,), self.bias_initializer,
                                     regularizer=self.bias_regularizer,
                                     constraint=self.bias_constraint, name="bias")
                     if self.use_bias else None)
        self.input_spec = InputSpec(min_ndim=2, axes={-1: features})
        self.built = True

    def call(self, inputs):
        if self._activation_name in _FUSED:
            return ops.dense(inputs, self.kernel, self.bias, self._activation_name)
        return self.activation(ops.dense(inputs, self.kernel, self.bias))

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[:-1]) + (self.units,)

    def get_config(self):
        return {**super().get_config(), "units": self.units,
                "activation": self._activation_name, "use_bias": self.use_bias,
                **weight_options.config(self, "kernel", "bias"),
                "activity_regularizer": regularizers_module.serialize(self.activity_regularizer)}


@LAYERS.register()
class Activation(Layer):
    """Applies an activation function (name or callable)."""

    supports_masking = True

    def __init__(self, activation, name=None, trainable=True, dtype=None, input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        self.activation = activations_module.get(activation)

    def call(self, inputs):
        return self.activation(inputs)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(),
                "activation": activations_module.serialize(self.activation)}


@LAYERS.register()
class Dropout(Layer):
    """Zeroes a fraction ``rate`` of the inputs during training only (scaled by 1/(1-rate)).

    Args:
        rate: float in [0, 1).
        noise_shape: optional mask shape broadcast over the input (``None`` entries take
            the input's size).
        seed: optional seed for this layer's own random stream.
    """

    supports_masking = True

    def __init__(self, rate, noise_shape=None, seed=None, name=None, trainable=True,
                 dtype=None, input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        if not 0.0 <= rate < 1.0:
            raise layer_error(self, f"needs rate in [0, 1), got {rate}")
        self.rate = float(rate)
        self.noise_shape = None if noise_shape is None else tuple(noise_shape)
        self.seed = seed
        self._stream = SeededStream(seed)

    def call(self, inputs, training=None):
        if not training or self.rate == 0.0:
            return inputs
        return ops.dropout(inputs, self.rate, self._stream.generator(),
                           self._noise_shape(inputs))

    def _noise_shape(self, inputs):
        return self.noise_shape

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "rate": self.rate,
                "noise_shape": None if self.noise_shape is None else list(self.noise_shape),
                "seed": self.seed}


@LAYERS.register()
class Flatten(Layer):
    """Flattens every axis but the batch axis: (batch, ...) -> (batch, prod(...));
    ``data_format="channels_first"`` inputs are flattened in channels-last order (Keras)."""

    def __init__(self, data_format=None, name=None, trainable=True, dtype=None,
                 input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        self.data_format = check_data_format(self, data_format)

    def call(self, inputs):
        if self.data_format == "channels_first" and inputs.ndim > 2:
            # Keras flattens channels-first inputs in channels-last order.
            inputs = ops.transpose(inputs, (0, *range(2, inputs.ndim), 1))
        return ops.reshape(inputs, (inputs.shape[0], -1))

    def compute_output_shape(self, input_shape):
        rest = input_shape[1:]
        size = None if any(s is None for s in rest) else int(math.prod(rest))
        return (input_shape[0], size)

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format}


@LAYERS.register()
class Reshape(Layer):
    """Reshapes the non-batch axes to ``target_shape`` (one entry may be -1)."""

    def __init__(self, target_shape, name=None, trainable=True, dtype=None, input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        self.target_shape = tuple(target_shape)
        if sum(1 for s in self.target_shape if s == -1) > 1 or any(
                s == 0 or s < -1 for s in self.target_shape):
            raise ValueError(f"Layer '{self.name}' (Reshape) needs positive sizes and at most "
                             f"one -1, got target_shape={self.target_shape}")

    def build(self, input_shape):
        rest = input_shape[1:]
        if all(s is not None for s in rest):
            known = math.prod(s for s in self.target_shape if s != -1)
            total = math.prod(rest)
            if (-1 in self.target_shape and total % known) or (
                    -1 not in self.target_shape and total != known):
                raise ValueError(f"Layer '{self.name}' (Reshape) cannot reshape input of shape "
                                 f"{tuple(input_shape)} to {self.target_shape}")
        self.built = True

    def call(self, inputs):
        return ops.reshape(inputs, (inputs.shape[0],) + self.target_shape)

    def compute_output_shape(self, input_shape):
        rest = input_shape[1:]
        if -1 in self.target_shape:
            if any(s is None for s in rest):
                return (input_shape[0],) + tuple(None if s == -1 else s for s in self.target_shape)
            known = math.prod(s for s in self.target_shape if s != -1)
            fill = math.prod(rest) // known
            return (input_shape[0],) + tuple(fill if s == -1 else s for s in self.target_shape)
        return (input_shape[0],) + self.target_shape

    def get_config(self):
        return {**super().get_config(), "target_shape": list(self.target_shape)}


@LAYERS.register()
class Permute(Layer):
    """Permutes the non-batch axes; ``dims`` is 1-based, e.g. ``(2, 1)`` swaps them."""

    def __init__(self, dims, name=None, trainable=True, dtype=None, input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        self.dims = tuple(dims)
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError(f"Layer '{self.name}' (Permute) needs a permutation of "
                             f"1..{len(self.dims)}, got dims={self.dims}")
        self.input_spec = InputSpec(ndim=len(self.dims) + 1)

    def call(self, inputs):
        return ops.transpose(inputs, (0,) + self.dims)

    def compute_output_shape(self, input_shape):
        return (input_shape[0],) + tuple(input_shape[d] for d in self.dims)

    def get_config(self):
        return {**super().get_config(), "dims": list(self.dims)}


@LAYERS.register()
class RepeatVector(Layer):
    """Repeats a (batch, features) input ``n`` times: -> (batch, n, features)."""

    def __init__(self, n, name=None, trainable=True, dtype=None, input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        if not isinstance(n, int) or n <= 0:
            raise ValueError(f"Layer '{self.name}' (RepeatVector) needs a positive int n, got {n!r}")
        self.n = n
        self.input_spec = InputSpec(ndim=2)

    def call(self, inputs):
        return ops.concatenate([ops.expand_dims(inputs, 1)] * self.n, axis=1)

    def compute_output_shape(self, input_shape):
        return (input_shape[0], self.n, input_shape[1])

    def get_config(self):
        return {**super().get_config(), "n": self.n}


@LAYERS.register()
class Identity(Layer):
    """Returns its input unchanged."""

    supports_masking = True

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        return input_shape


@LAYERS.register()
class Rescaling(Layer):
    """``inputs * scale + offset`` (for example ``scale=1/255``)."""

    def __init__(self, scale, offset=0.0, name=None, trainable=True, dtype=None,
                 input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        self.scale, self.offset = scale, offset

    def call(self, inputs):
        out = inputs * self.scale
        return out + self.offset if self.offset else out

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "scale": self.scale, "offset": self.offset}


@LAYERS.register()
class Lambda(Layer):
    """Wraps a Python function of tensors (written with ``lamina.ops``) as a layer.

    Saved configs record only the function's name: loading restores it from
    ``custom_objects``, never from code stored in a file.

    Args:
        function: ``function(inputs, **arguments)`` returning a Tensor.
        output_shape: optional output shape (without batch axis); traced when omitted.
        arguments: optional keyword arguments passed to ``function``.
    """

    def __init__(self, function, output_shape=None, arguments=None, name=None,
                 trainable=True, dtype=None, input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        if not callable(function):
            raise TypeError(f"Layer '{self.name}' (Lambda) needs a callable, got {function!r}")
        self.function = function
        self.output_shape = None if output_shape is None else tuple(output_shape)
        self.arguments = dict(arguments or {})

    def call(self, inputs):
        return self.function(inputs, **self.arguments)

    def compute_output_shape(self, input_shape):
        if self.output_shape is not None:
            batch = input_shape[0]
            while isinstance(batch, (list, tuple)):   # several inputs: the first one's batch
                batch = batch[0] if batch else None
            return (batch,) + self.output_shape
        return Layer.compute_output_shape(self, input_shape)

    def get_config(self):
        return {**super().get_config(), "function": getattr(self.function, "__name__", "lambda"),
                "output_shape": None if self.output_shape is None else list(self.output_shape),
                "arguments": self.arguments}

    @classmethod
    def from_config_with_objects(cls, config, custom_objects=None):
        """Rebuild from a config, taking the function named there from ``custom_objects``
        (code is never read from a config)."""
        config = dict(config)
        function = config.get("function")
        if isinstance(function, str):
            if not custom_objects or not callable(custom_objects.get(function)):
                raise ValueError(
                    f"Layer '{config.get('name')}' (Lambda) calls function {function!r}: pass "
                    f"it as custom_objects={{{function!r}: function}} to load it")
            config["function"] = custom_objects[function]
        return cls.from_config(config)

"""Layer wrappers: the ``Wrapper`` base class and ``TimeDistributed``."""

from ..backends import ops
from .arguments import layer_error
from .base import LAYERS, InputSpec, Layer


def serialize_inner(layer):
    """``{"class_name", "config"}`` of a wrapped layer (Keras' nested-layer schema)."""
    return {"class_name": layer.registered_class_name(), "config": layer.get_config()}


def deserialize_inner(entry, custom_objects=None):
    """Rebuild a wrapped layer from ``{"class_name", "config"}`` through the registry."""
    cls = LAYERS.lookup(entry["class_name"], custom_objects)
    config = entry.get("config", {})
    if hasattr(cls, "from_config_with_objects"):
        return cls.from_config_with_objects(config, custom_objects)
    return cls.from_config(config)


@LAYERS.register()
class Wrapper(Layer):
    """Base class of the layers that wrap another layer, as ``keras.layers.Wrapper``
    (``TimeDistributed``, ``SpectralNormalization``; subclasses implement ``call``).

    Args:
        layer: the Layer instance to wrap (``self.layer``; built by ``build`` with the
            wrapper's input shape unless a subclass overrides it).

    ``get_config`` holds the wrapped layer as ``{"class_name", "config"}`` under
    ``"layer"``; ``from_config`` rebuilds it through the layer registry.
    """

    def __init__(self, layer, name=None, trainable=True, dtype=None, input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        if not isinstance(layer, Layer):
            raise layer_error(self, f"needs a Layer instance to wrap, got {layer!r}")
        self.layer = layer

    def build(self, input_shape=None):
        self.layer.ensure_built(input_shape)
        self.built = True

    def get_config(self):
        return {**super().get_config(), "layer": serialize_inner(self.layer)}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        config["layer"] = deserialize_inner(config["layer"], custom_objects)
        return super().from_config(config)

    @classmethod
    def from_config_with_objects(cls, config, custom_objects=None):
        return cls.from_config(config, custom_objects)


@LAYERS.register()
class TimeDistributed(Wrapper):
    """Applies ``layer`` to every time step of a (batch, time, ...) input.

    The time axis is folded into the batch axis (``(b, t, ...) -> (b * t, ...)``), the
    wrapped layer runs once, and the result is unfolded. The weights are the wrapped
    layer's, shared by every step.

    Example:
        >>> td = lamina.layers.TimeDistributed(lamina.layers.Dense(8))
        >>> td(np.zeros((4, 10, 16), "float32")).shape
        (4, 10, 8)
    """

    def __init__(self, layer, name=None, trainable=True, dtype=None, input_shape=None):
        super().__init__(layer, name=name, trainable=trainable, dtype=dtype,
                         input_shape=input_shape)
        self.input_spec = InputSpec(min_ndim=3)

    def _inner_shape(self, input_shape):
        batch, steps = input_shape[0], input_shape[1]
        folded = None if batch is None or steps is None else batch * steps
        return (folded,) + tuple(input_shape[2:])

    def build(self, input_shape):
        self.layer.ensure_built(self._inner_shape(input_shape))
        self.built = True

    def call(self, inputs, training=None, mask=None):
        shape = inputs.shape
        folded = ops.reshape(inputs, (shape[0] * shape[1],) + tuple(shape[2:]))
        kwargs = {}
        if self.layer.call_accepts_training:
            kwargs["training"] = training
        if mask is not None and self.layer.call_accepts_mask:
            kwargs["mask"] = ops.reshape(mask, (shape[0] * shape[1],) + tuple(mask.shape[2:]))
        outputs = self.layer(folded, **kwargs)
        return ops.reshape(outputs, (shape[0], shape[1]) + tuple(outputs.shape[1:]))

    def compute_output_shape(self, input_shape):
        inner = self.layer.compute_output_shape(self._inner_shape(input_shape))
        return (input_shape[0], input_shape[1]) + tuple(inner[1:])

    def compute_mask(self, inputs, mask=None):
        return mask

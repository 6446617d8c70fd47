"""``Pipeline``: a list of (preprocessing) layers applied in order, as
``keras.layers.Pipeline``."""

from ..base import LAYERS, Layer
from ..wrappers import deserialize_inner, serialize_inner


@LAYERS.register()
class Pipeline(Layer):
    """Applies ``layers`` one after the other; a plain layer, not a ``Model``.

    Args:
        layers: the list of layers (the output of one is the input of the next).
        name: the layer's name.

    Call arguments: ``inputs``, ``training`` (default ``True``, as Keras: augmentation
    layers are active unless told otherwise; passed to the layers whose ``call`` takes
    it), ``mask`` (passed on and updated by each layer's ``compute_mask``). The config is
    Keras' ``{"layers", "name"}``. Example:

        >>> augment = Pipeline([RandomFlip(), RandomRotation(0.1), Rescaling(1 / 255)])
    """

    supports_masking = True

    def __init__(self, layers, name=None):
        super().__init__(name=name)
        if not isinstance(layers, (list, tuple)) or not all(
                isinstance(layer, Layer) for layer in layers):
            raise ValueError(f"Layer '{self.name}' (Pipeline) needs a list of Layer "
                             f"instances, got layers={layers!r}")
        self._pipeline_layers = list(layers)

    @property
    def layers(self):
        """The pipeline's layers, in order."""
        return self._pipeline_layers

    def build(self, input_shape):
        """Build each layer on the output shape of the one before."""
        for layer in self._pipeline_layers:
            layer.ensure_built(input_shape)
            input_shape = layer.compute_output_shape(input_shape)
        self.built = True

    def call(self, inputs, training=True, mask=None):
        outputs = inputs
        for layer in self._pipeline_layers:
            kwargs = {}
            if layer.call_accepts_mask:
                kwargs["mask"] = mask
            if layer.call_accepts_training and training is not None:
                kwargs["training"] = training
            outputs = layer(inputs, **kwargs)
            mask = layer.compute_mask(inputs, mask)
            inputs = outputs
        return outputs

    def compute_mask(self, inputs, mask=None):
        """Each layer's ``compute_mask`` in turn (each given the pipeline's inputs)."""
        for layer in self._pipeline_layers:
            mask = layer.compute_mask(inputs, mask)
        return mask

    def compute_output_shape(self, input_shape):
        for layer in self._pipeline_layers:
            input_shape = layer.compute_output_shape(input_shape)
        return input_shape

    def get_config(self):
        return {"layers": [serialize_inner(layer) for layer in self._pipeline_layers],
                "name": self.name}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        layers = config.get("layers")
        if not isinstance(layers, (list, tuple)):
            raise ValueError("Pipeline's config must hold 'layers', a list of serialized "
                             f"layers, got layers={layers!r}")
        return cls([deserialize_inner(entry, custom_objects) for entry in layers],
                   name=config.get("name"))

    @classmethod
    def from_config_with_objects(cls, config, custom_objects=None):
        return cls.from_config(config, custom_objects)

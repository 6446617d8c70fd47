"""``Sequential``: a plain stack of layers, each feeding the next."""

from ...layers.base import LAYERS, Layer, attach_masks
from ...layers.naming import unique_name
from ...layers.options import dtype_policies
from ...layers.input_layer import InputLayer
from ...layers.symbolic import SymbolicTensor
from ..saving import serialization
from .functional import FunctionalGraph
from .model import Model


@LAYERS.register()
class Sequential(Model):
    """A linear stack of layers.

    Args:
        layers: optional list of layers; may start with ``lamina.Input(shape)`` or an
            ``InputLayer``. Without one the model is built on the first data it sees.
        name: model name (default ``sequential``, ``sequential_1``, ...).

    Example:
        >>> model = lamina.Sequential([
        ...     lamina.Input((64,)),
        ...     lamina.layers.Dense(32, activation="relu"),
        ...     lamina.layers.Dense(10, activation="softmax"),
        ... ])
    """

    def __init__(self, layers=None, name=None, trainable=True):
        Model.__init__(self, name=name or unique_name("sequential"), trainable=trainable)
        self._graph_nodes = []          # the nodes of the current graph
        self._input_layer = None
        self._stack = []
        for layer in layers or []:
            self.add(layer, rebuild=False)
        self._rebuild()                 # once: rebuilding per layer is quadratic in depth

    def add(self, layer, rebuild=True):
        """Append a layer (or set the input with ``Input``/``InputLayer`` first);
        ``rebuild=False`` (as in Keras) defers building the graph to a later ``add``."""
        if isinstance(layer, SymbolicTensor):
            layer = layer.node.layer
        if isinstance(layer, InputLayer):
            if self._stack or self._input_layer is not None:
                raise ValueError(f"Sequential '{self.name}': an Input can only come first")
            self._input_layer = layer
            if rebuild:
                self._rebuild()
            return
        if not isinstance(layer, Layer):
            raise TypeError(f"Sequential '{self.name}' only accepts layers, got {layer!r}")
        if any(layer is existing for existing in self._stack):
            raise ValueError(f"layer '{layer.name}' is already in Sequential '{self.name}'")
        input_layer = self._input_layer
        if not self._stack and input_layer is None and layer.batch_input_shape:
            self._input_layer = InputLayer(batch_shape=layer.batch_input_shape)
        self._stack.append(layer)
        if not rebuild:
            return
        try:
            self._rebuild()
        except Exception:
            # A layer that does not fit leaves the model exactly as it was.
            self._stack.pop()
            self._input_layer = input_layer
            self._rebuild()
            raise

    def pop(self):
        """Remove and return the last layer."""
        if not self._stack:
            raise ValueError(f"Sequential '{self.name}' has no layers to pop")
        layer = self._stack.pop()
        self._rebuild()
        return layer

    def _rebuild(self):
        # Drop the nodes of the previous graph, so ``layer.output`` is this graph's.
        for node in self._graph_nodes:
            if node in node.layer.inbound_nodes:
                node.layer.inbound_nodes.remove(node)
        self._graph_nodes = []
        self._sublayers = list(self._stack)
        self._graph = None
        self.built = False
        if self._input_layer is not None and self._stack:
            self._build_graph()

    def _build_graph(self):
        tensor = self._input_layer.output
        for layer in self._stack:
            tensor = layer(tensor)
            if isinstance(tensor, SymbolicTensor):
                self._graph_nodes.append(tensor.node)
            if not isinstance(tensor, SymbolicTensor):
                raise ValueError(f"Sequential '{self.name}': layer '{layer.name}' returns "
                                 "several outputs; use the functional API")
        self._graph = FunctionalGraph(self._input_layer.output, tensor)
        self.build_input_shape = self._input_layer.batch_shape
        self._call_plan = [(layer, layer.call_accepts_training) for layer in self._stack]
        self.built = True

    @property
    def is_graph_network(self):
        """True: a Sequential model's layers are its whole structure (built or not)."""
        return self._graph is not None or bool(self._stack)

    @property
    def layers(self):
        """The stacked layers (the InputLayer is not listed, as in Keras)."""
        return list(self._stack)

    @property
    def operations(self):
        """The stacked layers (a Sequential model records no operations)."""
        return self.layers

    def build(self, input_shape=None):
        """Create the weights for inputs of ``input_shape`` (with the batch axis)."""
        if self._graph is not None:
            return
        if input_shape is None:
            raise ValueError(f"Sequential '{self.name}' needs an input shape to build")
        text = bool(self._stack) and getattr(self._stack[0], "takes_strings", False)
        self._input_layer = InputLayer(batch_shape=(None,) + tuple(input_shape[1:]),
                                       dtype="string" if text else None)
        self._rebuild()

    def call(self, inputs, training=None, mask=None):
        # Masks travel on the tensors (each layer's __call__ attaches its output mask).
        attach_masks(inputs, mask)
        x = inputs
        for layer, accepts_training in self._call_plan:
            # No reference to the previous activation is kept, so each one is freed as
            # soon as the next exists.
            x = layer(x, training=training) if accepts_training else layer(x)
        return x

    def expected_input_dtypes(self):
        """``["string"]`` before the model is built when its first layer takes text."""
        if self._stack and getattr(self._stack[0], "takes_strings", False):
            return ["string"]
        return None

    def _convert_inputs(self, inputs):
        # The Input layer's dtype decides (Input(dtype="string") keeps raw text), as does
        # a first layer taking text (TextVectorization) when there is no Input.
        converter = self._input_layer
        if converter is None and self._stack and getattr(self._stack[0], "takes_strings",
                                                         False):
            converter = self._stack[0]
        return Layer._convert_inputs(self, inputs) if converter is None else \
            converter._convert_inputs(inputs)

    def ensure_built(self, input_shape):
        if self._graph is None:
            self.build(input_shape)

    def registered_class_name(self):
        return "Sequential"

    def get_config(self):
        layers = [serialization.serialize_layer(layer) for layer in self._stack]
        if self._input_layer is not None:
            layers.insert(0, serialization.serialize_layer(self._input_layer))
        config = {"name": self.name, "trainable": self.trainable,
                  "dtype": dtype_policies.config_value(self.dtype_policy),
                  "layers": layers}
        if self.build_input_shape is not None:
            config["build_input_shape"] = list(self.build_input_shape)
        return config

    @classmethod
    def from_config_with_objects(cls, config, custom_objects=None):
        layers = [serialization.deserialize_layer(entry, custom_objects)
                  for entry in config.get("layers", [])]
        model = cls(layers=layers, name=config.get("name"), trainable=config.get("trainable", True))
        if config.get("dtype") is not None:   # the policy compile() follows (loss scaling)
            model.dtype_policy = config["dtype"]
        if model._graph is None and config.get("build_input_shape"):
            model.build(tuple(config["build_input_shape"]))
        return model

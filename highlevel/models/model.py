"""``Model``: functional models (``Model(inputs, outputs)``) and the base of subclassed and
Sequential models. Training lives in :mod:`training` (the ``Trainer`` mixin)."""

from ...layers.base import LAYERS, Layer
from ...layers.naming import snake_case, unique_name
from ...layers.symbolic import flatten, is_shape, map_structure
from ..saving import serialization
from .functional import FunctionalGraph
from .summary import print_summary
from ..training.trainer import Trainer


@LAYERS.register("Functional")
class Model(Trainer, Layer):
    """A trainable graph of layers.

    Functional use: ``Model(inputs, outputs)`` with symbolic tensors from ``Input``
    (lists or dicts for several inputs/outputs). Subclassing: override ``__init__``
    (create layers as attributes) and ``call(inputs, training=None)``.

    Example:
        >>> inputs = lamina.Input((20,))
        >>> hidden = lamina.layers.Dense(32, activation="relu")(inputs)
        >>> model = lamina.Model(inputs, lamina.layers.Dense(1)(hidden))
        >>> model.compile(optimizer="adam", loss="mse")
    """

    def __init__(self, inputs=None, outputs=None, name=None, trainable=True):
        default = "functional" if inputs is not None else snake_case(type(self).__name__)
        Layer.__init__(self, name=name or unique_name(default), trainable=trainable)
        Trainer.__init__(self)
        self._graph = None
        if inputs is not None or outputs is not None:
            if inputs is None or outputs is None:
                raise ValueError("Model(inputs, outputs) needs both inputs and outputs")
            self._set_graph(FunctionalGraph(inputs, outputs))

    @property
    def functional_graph(self):
        """The graph of layers a functional (or built Sequential) model runs; None for a
        subclassed model, whose ``call`` is code."""
        return self._graph

    @property
    def is_graph_network(self):
        """True when the model's layers are its whole structure (a functional or Sequential
        model); False for a subclassed model, whose ``call`` is code."""
        return self._graph is not None

    def _set_graph(self, graph):
        self._graph = graph
        self._sublayers = [layer for layer in graph.layers]
        self.built = True

    def tracked_layers(self):
        """The model's layers (its sublayers)."""
        return self._sublayers

    # ------------------------------------------------------------------ structure
    @property
    def layers(self):
        """The model's layers (functional: InputLayers first, then in execution order)."""
        return list(self._sublayers)

    @property
    def operations(self):
        """The layers and the operations (``x + y``, ``x[:, 1:]``) of a functional model
        in execution order, as Keras' ``model.operations``; ``layers`` without the
        operations."""
        return self.layers if self._graph is None else list(self._graph.operations)

    @property
    def inputs(self):
        return None if self._graph is None else list(self._graph.flat_inputs)

    @property
    def outputs(self):
        return None if self._graph is None else list(self._graph.flat_outputs)

    @property
    def input(self):
        """The symbolic input(s) as given to the constructor (Keras' ``model.input``)."""
        if self._graph is None:
            return Layer.input.fget(self)
        return self._graph.inputs

    @property
    def output(self):
        """The symbolic output(s) as given to the constructor (Keras' ``model.output``)."""
        if self._graph is None:
            return Layer.output.fget(self)
        return self._graph.outputs

    @property
    def input_shape(self):
        """The input shape(s), batch axis ``None`` (one shape for a single input)."""
        return self._structure_shapes(self.input)

    @property
    def output_shape(self):
        """The output shape(s), batch axis ``None`` (one shape for a single output)."""
        return self._structure_shapes(self.output)

    @staticmethod
    def _structure_shapes(structure):
        shapes = map_structure(lambda t: t.shape, structure)
        if isinstance(shapes, list) and len(shapes) == 1:
            return shapes[0]
        return shapes

    @property
    def input_names(self):
        return [] if self._graph is None else [t.node.layer.name for t in self._graph.flat_inputs]

    @property
    def output_names(self):
        if self._graph is None:
            return []
        return [t.node.layer.name for t in self._graph.flat_outputs]

    def get_layer(self, name=None, index=None):
        """The layer called ``name`` (or at position ``index``); ``ValueError`` if absent."""
        if index is not None:
            if not -len(self.layers) <= index < len(self.layers):
                raise ValueError(f"model '{self.name}' has {len(self.layers)} layers, "
                                 f"no index {index}")
            return self.layers[index]
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise ValueError(f"no layer named {name!r} in model '{self.name}'; layers: "
                         f"{[layer.name for layer in self.layers]}")

    def summary(self, line_length=None, positions=None, print_fn=None, expand_nested=False,
                show_trainable=False, layer_range=None):
        """Print Keras 3's summary table (see :func:`.summary.print_summary`)."""
        print_summary(self, line_length=line_length, positions=positions, print_fn=print_fn,
                      expand_nested=expand_nested, show_trainable=show_trainable,
                      layer_range=layer_range)

    # ------------------------------------------------------------------ calling
    supports_masking = True     # masks reach the layers inside; they attach the outputs'

    def compute_mask(self, inputs, mask=None):
        """None: the layers inside attach the output masks as they run (Keras 3)."""
        return None

    def call(self, inputs, training=None, mask=None):
        if self._graph is None:
            raise NotImplementedError(f"model '{self.name}' is subclassed: define call()")
        flat, _ = self._graph.run(self._flatten_inputs(inputs), training=training,
                                      masks=None if mask is None else flatten(mask))
        return self._graph.pack_outputs(flat)

    def _flatten_inputs(self, inputs):
        graph = self._graph
        if isinstance(inputs, dict):
            names = self.input_names
            missing = [n for n in names if n not in inputs]
            if missing:
                raise ValueError(f"model '{self.name}' expects inputs named {names}, "
                                 f"missing {missing}")
            return [inputs[n] for n in names]
        flat = flatten(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        if len(flat) != len(graph.flat_inputs):
            raise ValueError(f"model '{self.name}' expects {len(graph.flat_inputs)} inputs, "
                             f"got {len(flat)}")
        return flat

    def _convert_inputs(self, inputs):
        if self._graph is None:
            return Layer._convert_inputs(self, inputs)
        flat = self._flatten_inputs(inputs)
        converted = []
        for value, symbolic in zip(flat, self._graph.flat_inputs):
            layer = symbolic.node.layer
            tensor = Layer._convert_inputs(layer, value)
            self._check_model_input(layer, tensor.shape)
            converted.append(tensor)
        return converted

    def _check_model_input(self, input_layer, shape):
        expected = input_layer.batch_shape
        if len(shape) != len(expected) or any(
                e is not None and e != s for e, s in zip(expected[1:], shape[1:])):
            raise ValueError(f"Input '{input_layer.name}' of model '{self.name}' expects "
                             f"shape {expected}, got {tuple(shape)}")

    def compute_output_shape(self, input_shape):
        if self._graph is not None:
            shapes = [t.shape for t in self._graph.flat_outputs]
            return shapes[0] if len(shapes) == 1 and not isinstance(
                self._graph.outputs, (list, tuple, dict)) else shapes
        return Layer.compute_output_shape(self, input_shape)

    def build(self, input_shape):
        """Create the weights of a subclassed model by running it once on zeros."""
        if self._graph is None and not self.built:
            if is_shape(input_shape):
                input_shape = tuple(input_shape)
            self.compute_output_shape(input_shape)   # a dict of shapes for dict inputs
            self.build_input_shape = input_shape
        self.built = True

    # ------------------------------------------------------------------ config
    def registered_class_name(self):
        return "Functional" if self._graph is not None and type(self) is Model \
            else type(self).__name__

    def get_config(self):
        """Keras' Functional config (layers, inbound nodes, input/output layers); a
        subclassed model returns its constructor arguments (override as in Keras)."""
        if self._graph is None:
            return {"name": self.name, "trainable": self.trainable}
        return serialization.functional_config(self._graph, self.name, self.trainable)

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return cls.from_config_with_objects(config, custom_objects)

    @classmethod
    def from_config_with_objects(cls, config, custom_objects=None):
        if "layers" not in config or "input_layers" not in config:
            return cls(**config)
        inputs, outputs, _ = serialization.rebuild_functional(config, custom_objects)
        single_in = len(inputs) == 1
        single_out = len(outputs) == 1
        return cls(inputs[0] if single_in else inputs, outputs[0] if single_out else outputs,
                   name=config.get("name"), trainable=config.get("trainable", True))

    # ------------------------------------------------------------------ saving (saving.py)
    def save(self, filepath, overwrite=True, include_optimizer=True):
        """Write the model (architecture, weights, compile and optimizer state),
        atomically: Keras 3's ``.keras`` zip for a ``.keras`` path, else an HDF5 file in
        Keras' legacy ``.h5`` layout."""
        from ..saving import saving_api
        saving_api.save_model(self, filepath, overwrite=overwrite,
                              include_optimizer=include_optimizer)

    def save_weights(self, filepath, overwrite=True):
        """Write the weights: Keras 3's layout for ``*.weights.h5``, the legacy one else."""
        from ..saving import saving_api
        saving_api.save_weights(self, filepath, overwrite=overwrite)

    def load_weights(self, filepath, by_name=False, skip_mismatch=False):
        """Load weights from either layout (detected from the file) or a full-model file;
        returns a ``LoadReport`` when ``by_name`` or ``skip_mismatch`` is set."""
        from ..saving import saving_api
        return saving_api.load_weights(self, filepath, by_name=by_name,
                                       skip_mismatch=skip_mismatch)

    def export(self, filepath, format="onnx", verbose=True, input_signature=None, **kwargs):
        """Write the model for serving: ``format="onnx"`` (the ``[onnx]`` extra; inference
        mode, dynamic batch, inputs/outputs named after their layers), or ``"h5"``/
        ``"keras"`` (as ``save``). Keras' TensorFlow-only formats raise ``ValueError``."""
        from ..export import export_model
        return export_model(self, filepath, format=format, verbose=verbose,
                            input_signature=input_signature, **kwargs)

    def to_json(self, **kwargs):
        """The model's Keras 3 serialization as JSON text (``lamina.models.model_from_json``
        rebuilds it); ``kwargs`` go to ``json.dumps``."""
        from ..saving import keras_serialization
        return keras_serialization.to_json(self, **kwargs)

    def to_bytes(self):
        """The model as the bytes of an HDF5 file (``lamina.models.from_bytes`` reads it)."""
        from ..saving import model_file as saving
        return saving.to_bytes(self)

    def restore_from_checkpoint(self, filepath, initial_epoch=None):
        """Load the weights and optimizer state of the checkpoint ``filepath`` into this
        model in place (``BackupAndRestore`` resumes with it); with ``initial_epoch`` the
        ``fit`` running now continues from that epoch."""
        from ..saving import model_file as saving
        saving.restore_from_checkpoint(self, filepath)
        self._initial_epoch_from_backup = initial_epoch

    def __reduce__(self):
        from ..saving import model_file as saving
        return saving.reduce_model(self)

    def __deepcopy__(self, memo):
        from ..saving import model_file as saving
        return saving.deepcopy_model(self)

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name!r}, {self.count_params()} params>"

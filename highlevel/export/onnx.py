"""ONNX export (``model.export(path, format="onnx")``), written with the ``onnx`` package.

The model's functional graph is walked once in execution order; each layer call becomes a
few ONNX nodes, emitted by the converter registered for the layer's class (see
:mod:`.onnx_registry`, :mod:`.onnx_layers` and :mod:`.onnx_sequence`). Layers run in inference mode: Dropout and
noise layers are identities, BatchNormalization uses its moving statistics. The batch
dimension (and any other ``None`` dimension) stays dynamic; graph inputs are named after
the model's input layers and outputs after the layers that produce them.

Example:
    >>> model.export("model.onnx", format="onnx")          # doctest: +SKIP
    >>> import onnxruntime as ort                            # doctest: +SKIP
    >>> session = ort.InferenceSession("model.onnx")         # doctest: +SKIP
    >>> session.run(None, {"input_layer": x})[0]             # doctest: +SKIP
"""

import numpy as np

from ...layers.input_layer import InputLayer
from ...layers.symbolic import SymbolicTensor
from . import onnx_layers, onnx_sequence  # noqa: F401  (importing them registers the converters)
from .onnx_registry import CONVERTERS, ExportError, unsupported

OPSET = 17


def require_onnx():
    """The ``onnx`` module, or an ImportError naming the ``[onnx]`` extra."""
    try:
        import onnx
    except ImportError as error:
        raise ImportError("model.export(format='onnx') needs the 'onnx' package: "
                          "pip install 'lamina[onnx]' (or pip install onnx)") from error
    return onnx


def converter_for(layer):
    """The converter of ``layer``'s class, or an error naming the layer."""
    try:
        return CONVERTERS[type(layer)]
    except KeyError:
        raise unsupported(layer, "no ONNX converter for this layer class") from None


class GraphBuilder:
    """Accumulates ONNX nodes and initializers with unique value names."""

    def __init__(self, onnx):
        self.onnx = onnx
        self.helper = onnx.helper
        self.nodes = []
        self.initializers = []
        self._used = set()

    def unique(self, hint):
        """A value name based on ``hint`` not used before."""
        name, count = hint, 0
        while name in self._used:
            count += 1
            name = f"{hint}_{count}"
        self._used.add(name)
        return name

    def const(self, array, hint, dtype=None):
        """An initializer holding ``array`` (float32 unless ``dtype``); returns its name."""
        array = np.asarray(array, dtype=dtype or np.float32)
        name = self.unique(hint)
        self.initializers.append(self.onnx.numpy_helper.from_array(array, name))
        return name

    def ints(self, values, hint):
        """An int64 initializer (shapes, axes, pads)."""
        return self.const(np.asarray(values, dtype=np.int64), hint, dtype=np.int64)

    def op(self, op_type, inputs, hint, outputs=1, **attributes):
        """Append one ``op_type`` node; returns its output name (or list of ``outputs``)."""
        names = [self.unique(f"{hint}/{op_type}" + (f":{i}" if outputs > 1 else ""))
                 for i in range(outputs)]
        attributes = {k: v for k, v in attributes.items() if v is not None}
        self.nodes.append(self.helper.make_node(op_type, list(inputs), names,
                                                name=self.unique(f"{hint}/{op_type}_node"),
                                                **attributes))
        return names[0] if outputs == 1 else names


def _value_info(onnx, name, shape, dtype, prefix):
    dims = [d if d is not None else (f"{prefix}batch" if axis == 0 else f"{prefix}dim{axis}")
            for axis, d in enumerate(shape)]
    elem = onnx.helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    return onnx.helper.make_tensor_value_info(name, elem, dims)


def _graph_of(model):
    graph = getattr(model, "functional_graph", None)
    if graph is None:
        raise ExportError(f"ONNX export: model '{model.name}' ({type(model).__name__}) has no "
                          "layer graph: export supports Sequential models with a known input "
                          "shape (build them first) and functional models, not subclassed "
                          "models")
    return graph


def convert_graph(builder, graph, values):
    """Emit the nodes of ``graph``; ``values`` maps ``id(symbolic input)`` -> value name
    and gains an entry for every tensor computed."""
    for node in graph.nodes:
        layer = node.layer
        for key, value in node.kwargs.items():
            if isinstance(value, SymbolicTensor) or (
                    isinstance(value, (list, tuple)) and any(
                        isinstance(v, SymbolicTensor) for v in value)):
                raise unsupported(layer, f"it is called with a tensor argument {key}=")
        inputs = [values[id(t)] for t in node.flat_inputs]
        shapes = [t.shape for t in node.flat_inputs]
        if getattr(layer, "functional_graph", None) is not None:     # a nested model
            inner = layer.functional_graph
            inner_values = {id(t): name for t, name in zip(inner.flat_inputs, inputs)}
            convert_graph(builder, inner, inner_values)
            outputs = [inner_values[id(t)] for t in inner.flat_outputs]
        else:
            outputs = converter_for(layer)(builder, layer, inputs, shapes, node)
        if len(outputs) != len(node.outputs):
            raise unsupported(layer, f"its converter made {len(outputs)} outputs, the layer "
                                     f"has {len(node.outputs)}")
        for tensor, name in zip(node.outputs, outputs):
            values[id(tensor)] = name
    return values


def to_onnx(model, opset=OPSET):
    """The ``onnx.ModelProto`` of ``model`` (checked with ``onnx.checker``)."""
    onnx = require_onnx()
    graph = _graph_of(model)
    builder = GraphBuilder(onnx)
    values, graph_inputs = {}, []
    for tensor in graph.flat_inputs:
        layer = tensor.node.layer
        name = builder.unique(layer.name)
        values[id(tensor)] = name
        graph_inputs.append(_value_info(onnx, name, tensor.shape, tensor.dtype, ""))
    convert_graph(builder, graph, values)
    graph_outputs = []
    for position, tensor in enumerate(graph.flat_outputs):
        producer = tensor.node.layer
        name = builder.unique(producer.name if not isinstance(producer, InputLayer)
                              else f"output_{position}")
        builder.nodes.append(onnx.helper.make_node("Identity", [values[id(tensor)]], [name],
                                                   name=builder.unique(f"{name}/output")))
        graph_outputs.append(_value_info(onnx, name, tensor.shape, "float32"
                                         if tensor.dtype is None else tensor.dtype, "out_"))
    proto = onnx.helper.make_model(
        onnx.helper.make_graph(builder.nodes, model.name, graph_inputs, graph_outputs,
                               builder.initializers),
        opset_imports=[onnx.helper.make_opsetid("", opset)], producer_name="lamina")
    proto.ir_version = 8
    onnx.checker.check_model(proto)
    return proto


def export_onnx(model, filepath, verbose=True, input_signature=None, opset=OPSET):
    """Write ``model`` as an ONNX file at ``filepath`` (opset ``opset``, default 17).

    ``input_signature`` is accepted for Keras compatibility and must be ``None`` (the
    model's own input shapes are used, ``None`` dimensions dynamic). Returns the path.
    """
    if input_signature is not None:
        raise ValueError("export(format='onnx'): input_signature is not supported; the "
                         "model's input shapes (None = dynamic) are used")
    proto = to_onnx(model, opset=opset)
    filepath = str(filepath)
    with open(filepath, "wb") as handle:
        handle.write(proto.SerializeToString())
    if verbose:
        inputs = ", ".join(i.name for i in proto.graph.input)
        outputs = ", ".join(o.name for o in proto.graph.output)
        print(f"Saved ONNX model to {filepath} (inputs: {inputs}; outputs: {outputs})")
    return filepath

"""Layer and functional-graph configs in Keras 3's JSON schema.

A layer is ``{"class_name", "config"}``; a functional model's config lists its layers in
topological order with their ``inbound_nodes`` (``__keras_tensor__`` references
``[layer_name, node_index, tensor_index]``), plus ``input_layers`` / ``output_layers``.
Class names are public names looked up in the layer registry: no module paths, no code.
"""

from ...layers.base import LAYERS
from ...layers.serialization import legacy_entry as serialize_layer
from ...layers.symbolic import SymbolicTensor, flatten, map_structure
from ...layers.symbolic_operations import (TensorOperation, is_keras_operation_entry,
                                           keras_operation_entry, operation_from_keras_entry)


def deserialize_layer(entry, custom_objects=None):
    """Rebuild a layer from ``{"class_name", "config"}`` (its ``registered_name`` first,
    when it has one: registry, registered classes or custom_objects only)."""
    if not isinstance(entry, dict) or "class_name" not in entry:
        raise ValueError(f"a layer config must be a dict with 'class_name' and 'config', "
                         f"got {entry!r}")
    cls = LAYERS.lookup_entry(entry, custom_objects)
    config = entry.get("config", {})
    if hasattr(cls, "from_config_with_objects"):
        return cls.from_config_with_objects(config, custom_objects)
    return cls.from_config(config)


def _tensor_reference(tensor):
    layer = tensor.node.layer
    node_index = layer.inbound_nodes.index(tensor.node)
    return {"class_name": "__keras_tensor__",
            "config": {"shape": list(tensor.shape), "dtype": tensor.dtype,
                       "keras_history": [layer.name, node_index, tensor.index]}}


def functional_config(graph, name, trainable):
    """The Keras 3 ``Functional`` config of a :class:`FunctionalGraph`."""
    node_sets = {id(node) for node in graph.nodes}
    layers = []
    for layer in graph.operations:
        inbound_nodes = [
            {"args": [map_structure(_reference_or_constant, a) for a in node.args],
             "kwargs": {k: map_structure(_reference_or_constant, v)
                        for k, v in node.kwargs.items()}}
            for node in layer.inbound_nodes if id(node) in node_sets]
        if isinstance(layer, TensorOperation):   # Keras' operation entry, e.g. "Add"
            layers.append(keras_operation_entry(layer, inbound_nodes))
            continue
        entry = serialize_layer(layer)
        entry["name"] = layer.name
        entry["inbound_nodes"] = inbound_nodes
        layers.append(entry)

    def history(tensor):
        return _tensor_reference(tensor)["config"]["keras_history"]

    return {"name": name, "trainable": trainable, "layers": layers,
            "input_layers": [history(t) for t in graph.flat_inputs],
            "output_layers": [history(t) for t in graph.flat_outputs]}


def _reference_or_constant(value):
    if isinstance(value, slice):        # a get_item key, as Keras writes it
        return {"class_name": "__slice__",
                "config": {"start": value.start, "stop": value.stop, "step": value.step}}
    return _tensor_reference(value) if isinstance(value, SymbolicTensor) else value


def rebuild_functional(config, custom_objects=None):
    """Recreate ``(inputs, outputs, layers_by_name)`` from a Functional config by replaying
    every layer call in order (layers are created fresh from their configs)."""
    created = {}
    produced = {}
    pending = []
    for entry in config["layers"]:
        if is_keras_operation_entry(entry):   # ``x + y``, ``x[:, 1:]``: Keras' "Add", ...
            layer, nodes = operation_from_keras_entry(entry, _is_tensor_reference)
        else:
            layer, nodes = deserialize_layer(entry, custom_objects), entry.get(
                "inbound_nodes", [])
        name = entry.get("name", layer.name)
        created[name] = layer
        if type(layer).__name__ == "InputLayer":
            produced[(name, 0)] = [layer.output]
        for node_data in _normalize_inbound(nodes):
            pending.append((layer, name, node_data))

    def resolve(value):
        if _is_tensor_reference(value):
            layer_name, node_index, tensor_index = value["config"]["keras_history"]
            outputs = produced.get((layer_name, node_index))
            if outputs is None:
                raise KeyError((layer_name, node_index))
            return outputs[tensor_index]
        if isinstance(value, dict) and value.get("class_name") == "__slice__":
            return slice(value["config"]["start"], value["config"]["stop"],
                         value["config"]["step"])
        if isinstance(value, (list, tuple)):    # tuples stay in in-memory configs (clone)
            return type(value)(resolve(v) for v in value)
        if isinstance(value, dict):
            return {k: resolve(v) for k, v in value.items()}
        return value

    while pending:
        progressed = False
        for item in list(pending):
            layer, name, node_data = item
            try:
                args = [resolve(a) for a in node_data["args"]]
                kwargs = {k: resolve(v) for k, v in node_data.get("kwargs", {}).items()}
            except KeyError:
                continue
            result = layer(*args, **kwargs)
            node_index = sum(1 for key in produced if key[0] == name)
            produced[(name, node_index)] = flatten(result)
            pending.remove(item)
            progressed = True
        if not progressed:
            missing = ", ".join(sorted({name for _, name, _ in pending}))
            raise ValueError(f"model config is inconsistent: cannot connect layers {missing}")

    def endpoint(triple):
        layer_name, node_index, tensor_index = triple
        if (layer_name, node_index) not in produced:
            raise ValueError(f"model config names unknown layer output {triple!r}")
        return produced[(layer_name, node_index)][tensor_index]

    inputs = [endpoint(t) for t in _triples(config["input_layers"])]
    outputs = [endpoint(t) for t in _triples(config["output_layers"])]
    return inputs, outputs, created


def _is_tensor_reference(value):
    return isinstance(value, dict) and value.get("class_name") == "__keras_tensor__"


def _triples(value):
    if len(value) == 3 and isinstance(value[0], str):
        return [value]
    return value


def _normalize_inbound(inbound_nodes):
    """Keras 3 ``{"args", "kwargs"}`` nodes, or Keras 2's nested lists, as Keras 3 form."""
    result = []
    for node in inbound_nodes:
        if isinstance(node, dict):
            result.append(node)
            continue
        tensors = [{"class_name": "__keras_tensor__",
                    "config": {"keras_history": [item[0], item[1], item[2]]}} for item in node]
        kwargs = node[0][3] if node and len(node[0]) > 3 else {}
        result.append({"args": [tensors[0] if len(tensors) == 1 else tensors],
                       "kwargs": kwargs})
    return result

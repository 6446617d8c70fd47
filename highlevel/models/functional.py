"""The functional graph: symbolic inputs -> nodes -> outputs, run on real tensors.

Built once from the ``Node`` records that calling layers on ``Input`` tensors left; the
topological order is computed at construction, so running is one loop over nodes.
"""

from ...layers.base import attach_masks
from ...layers.input_layer import InputLayer
from ...layers.symbolic import SymbolicTensor, flatten, map_structure, pack_like
from ...layers.symbolic_operations import TensorOperation


class FunctionalGraph:
    """Nodes between ``inputs`` and ``outputs`` in execution order.

    Args:
        inputs: a SymbolicTensor from ``Input``, or a list/dict of them.
        outputs: a SymbolicTensor or a list/dict of them, reachable from ``inputs``.
    """

    def __init__(self, inputs, outputs):
        self.inputs = inputs
        self.outputs = outputs
        self.flat_inputs = flatten(inputs)
        self.flat_outputs = flatten(outputs)
        for position, tensor in enumerate(self.flat_inputs):
            if not isinstance(tensor, SymbolicTensor) or not isinstance(tensor.node.layer,
                                                                        InputLayer):
                raise ValueError(f"Model inputs must come from lamina.Input(...); input "
                                 f"{position} is {tensor!r}")
        for position, tensor in enumerate(self.flat_outputs):
            if not isinstance(tensor, SymbolicTensor):
                raise ValueError(f"Model outputs must be symbolic tensors made by calling "
                                 f"layers on Input(...); output {position} is {tensor!r}")
        self.nodes = self._order_nodes()
        # Keras' ``operations`` (layers and the operations ``x + y`` recorded) and
        # ``layers`` (without those operations, as Keras' ``model.layers``)
        self.operations = self._ordered_layers()
        self.layers = [layer for layer in self.operations
                       if not isinstance(layer, TensorOperation)]

    def _order_nodes(self):
        """Execution order: depth-first from each output, inputs in argument order (as
        Keras walks the graph); also records each layer's first visit for ``layers``."""
        input_ids = {id(t) for t in self.flat_inputs}
        order, state = [], {}
        self._first_visit = {}
        for output in self.flat_outputs:
            stack = [(output.node, False)]
            while stack:
                node, expanded = stack.pop()
                if expanded:
                    state[id(node)] = "done"
                    order.append(node)
                    continue
                if state.get(id(node)):
                    continue
                state[id(node)] = "visiting"
                self._first_visit.setdefault(id(node.layer), len(self._first_visit))
                stack.append((node, True))
                for tensor in reversed(node.flat_inputs):
                    if state.get(id(tensor.node)):
                        continue
                    if isinstance(tensor.node.layer, InputLayer) and id(tensor) not in input_ids:
                        raise ValueError(
                            f"output depends on input '{tensor.node.layer.name}', which is "
                            "not among the model's inputs")
                    stack.append((tensor.node, False))
        self.all_nodes = order
        return [node for node in order if not isinstance(node.layer, InputLayer)]

    def _ordered_layers(self):
        """Keras' ``Functional.layers`` order (hence its weight order): by decreasing depth
        from the outputs, ties broken by first visit from the outputs."""
        node_depth, layer_depth, by_id = {}, {}, {}
        for node in reversed(self.all_nodes):
            depth = max(node_depth.get(id(node), 0), layer_depth.get(id(node.layer), 0))
            layer_depth[id(node.layer)] = depth
            node_depth[id(node)] = depth
            by_id[id(node.layer)] = node.layer
            for parent in node.parents:
                node_depth[id(parent)] = max(depth + 1, node_depth.get(id(parent), 0))
        layers = sorted(by_id.values(), key=lambda layer: (-layer_depth[id(layer)],
                                                           self._first_visit[id(layer)]))
        unused = [t.node.layer for t in self.flat_inputs if id(t.node.layer) not in by_id]
        return unused + layers

    def run(self, inputs, training=False, masks=None):
        """Execute the graph on real tensors.

        Masks travel on the tensors (``_keras_mask``, attached by each layer's
        ``__call__``), as in Keras 3.

        Args:
            inputs: flat list of Tensors, one per model input.
            training: passed to layers whose ``call`` accepts it.
            masks: optional flat list of input masks (attached to the inputs).
        Returns:
            (flat list of output Tensors, flat list of output masks or None).
        """
        if masks is not None:
            for tensor, mask in zip(inputs, masks):
                attach_masks(tensor, mask)
        values = {id(t): v for t, v in zip(self.flat_inputs, inputs)}

        def real(leaf):
            return values[id(leaf)] if isinstance(leaf, SymbolicTensor) else leaf

        for node in self.nodes:
            layer = node.layer
            args = [map_structure(real, a) for a in node.args]
            kwargs = {k: map_structure(real, v) for k, v in node.kwargs.items()}
            if layer.call_accepts_training and "training" not in kwargs:
                kwargs["training"] = training
            result = layer(*args, **kwargs)
            for tensor, value in zip(node.outputs, flatten(result)):
                values[id(tensor)] = value
        outputs = [values[id(t)] for t in self.flat_outputs]
        return outputs, [getattr(t, "_keras_mask", None) for t in outputs]

    def pack_outputs(self, flat):
        """Arrange flat output values like the ``outputs`` given at construction."""
        return pack_like(self.outputs, flat)

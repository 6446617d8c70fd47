"""The functional graph: symbolic inputs -> nodes -> outputs, run on real tensors.

Built once from the ``Node`` records that calling layers on ``Input`` tensors left; the
topological order is computed at construction, so running is one loop over nodes.
"""

from ...layers.base import Layer
from ...layers.input_layer import InputLayer
from ...layers.symbolic import SymbolicTensor, flatten, map_structure, pack_like


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
        self.layers = self._ordered_layers()
        # Resolved once: does a node's layer compute masks of its own (not just pass them)?
        self._plan = [(node, type(node.layer).compute_mask is not Layer.compute_mask)
                      for node in self.nodes]

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
        self._all_nodes = order
        return [node for node in order if not isinstance(node.layer, InputLayer)]

    def _ordered_layers(self):
        """Keras' ``Functional.layers`` order (hence its weight order): by decreasing depth
        from the outputs, ties broken by first visit from the outputs."""
        node_depth, layer_depth, by_id = {}, {}, {}
        for node in reversed(self._all_nodes):
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

        Args:
            inputs: flat list of Tensors, one per model input.
            training: passed to layers whose ``call`` accepts it.
            masks: optional flat list of input masks.
        Returns:
            (flat list of output Tensors, flat list of output masks or None).
        """
        values = {id(t): v for t, v in zip(self.flat_inputs, inputs)}
        mask_values = {}
        if masks is not None:
            mask_values = {id(t): m for t, m in zip(self.flat_inputs, masks) if m is not None}

        def real(leaf):
            return values[id(leaf)] if isinstance(leaf, SymbolicTensor) else leaf

        for node, makes_mask in self._plan:
            layer = node.layer
            args = [map_structure(real, a) for a in node.args]
            kwargs = {k: map_structure(real, v) for k, v in node.kwargs.items()}
            if layer._call_accepts_training and "training" not in kwargs:
                kwargs["training"] = training
            input_mask = None
            if mask_values:
                first = node.args[0]
                input_mask = map_structure(lambda t: mask_values.get(id(t)), first)
                if all(m is None for m in flatten(input_mask)):
                    input_mask = None
                elif layer._call_accepts_mask and "mask" not in kwargs:
                    kwargs["mask"] = input_mask
            result = layer(*args, **kwargs)
            flat_result = flatten(result)
            for tensor, value in zip(node.outputs, flat_result):
                values[id(tensor)] = value
            if input_mask is not None or makes_mask:
                out_mask = layer.compute_mask(args[0], input_mask)
                if out_mask is not None:
                    for tensor, value in zip(node.outputs, flatten(out_mask)
                                             if isinstance(out_mask, (list, tuple))
                                             else [out_mask] * len(node.outputs)):
                        mask_values[id(tensor)] = value
        outputs = [values[id(t)] for t in self.flat_outputs]
        return outputs, [mask_values.get(id(t)) for t in self.flat_outputs]

    def pack_outputs(self, flat):
        """Arrange flat output values like the ``outputs`` given at construction."""
        return pack_like(self.outputs, flat)

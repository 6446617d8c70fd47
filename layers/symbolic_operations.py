"""Operators on symbolic tensors: ``x + inputs``, ``1.0 - x``, ``x[:, 1:]`` between layer
calls of a functional model, as on Keras 3's ``KerasTensor``.

Keras records such an expression as an ``Operation`` node (``keras.src.ops.numpy.Add``,
``GetItem``, ...) of the functional graph. lamina records it as a weightless
:class:`TensorOperation` layer named like Keras' operation (``add``, ``subtract``,
``get_item``, ...), which applies the ``lamina.ops`` function of that name when the model
runs; its output shape comes from the layer tracing every layer uses. Importing this module
(``lamina.layers`` does) installs the operators on ``SymbolicTensor``, as
``lamina.ops`` installs them on ``Tensor``.
"""

from ..backends import ops
from ..backends.dtypes import result_type
from .base import LAYERS, Layer
from .naming import unique_name
from .symbolic import SymbolicTensor

# Keras' operation names (the ``keras.ops`` function each ``KerasTensor`` operator calls)
# with the class Keras records it as (``keras.src.ops.numpy.<class>``).
OPERATIONS = {
    "add": ops.add, "subtract": ops.subtract, "multiply": ops.multiply,
    "true_divide": ops.true_divide, "matmul": ops.matmul, "power": ops.power,
    "negative": ops.negative, "absolute": ops.absolute, "get_item": ops.getitem,
    "less": ops.less, "less_equal": ops.less_equal, "greater": ops.greater,
    "greater_equal": ops.greater_equal, "not_equal": ops.not_equal,
    "floor_divide": ops.floor_divide, "mod": ops.mod, "logical_and": ops.logical_and,
    "logical_or": ops.logical_or, "logical_xor": ops.logical_xor,
    "logical_not": ops.logical_not,
}
KERAS_CLASSES = {
    "add": "Add", "subtract": "Subtract", "multiply": "Multiply", "true_divide": "TrueDivide",
    "matmul": "Matmul", "power": "Power", "negative": "Negative", "absolute": "Absolute",
    "get_item": "GetItem", "less": "Less", "less_equal": "LessEqual", "greater": "Greater",
    "greater_equal": "GreaterEqual", "not_equal": "NotEqual", "floor_divide": "FloorDivide",
    "mod": "Mod", "logical_and": "LogicalAnd", "logical_or": "LogicalOr",
    "logical_xor": "LogicalXor", "logical_not": "LogicalNot",
}
#: The module Keras 3 names for these operations in a functional model's config.
KERAS_MODULE = "keras.src.ops.numpy"
_OPERATION_OF_CLASS = {keras_class: name for name, keras_class in KERAS_CLASSES.items()}
_BOOLEAN = frozenset(("less", "less_equal", "greater", "greater_equal", "not_equal",
                      "logical_and", "logical_or", "logical_xor", "logical_not"))
_SAME_DTYPE = frozenset(("negative", "absolute", "get_item"))


@LAYERS.register()
class TensorOperation(Layer):
    """One operator applied to a symbolic tensor (made by ``SymbolicTensor``'s operators;
    a model's config holds it with its inbound node).

    Args:
        operation: Keras' name of the operation (a key of :data:`OPERATIONS`).
        reverse: the symbolic tensor is the right operand (``1.0 - x``: ``subtract`` of
            ``(1.0, x)``), the recorded node holds it first.
        **kwargs: base layer arguments (``name`` defaults to ``operation``, made unique).
    """

    def __init__(self, operation, reverse=False, **kwargs):
        if operation not in OPERATIONS:
            raise ValueError(f"TensorOperation: unknown operation {operation!r}; expected "
                             f"one of {sorted(OPERATIONS)}")
        kwargs["name"] = kwargs.get("name") or unique_name(operation)
        super().__init__(**kwargs)
        self.operation = operation
        self.reverse = bool(reverse)

    def call(self, inputs, *operands):
        if self.operation == "get_item":
            key = operands[0]
            # a tuple key reads back from a JSON config as a list
            return OPERATIONS["get_item"](inputs, tuple(key) if isinstance(key, list) else key)
        values = (*operands, inputs) if self.reverse else (inputs, *operands)
        return OPERATIONS[self.operation](*values)

    @property
    def keras_class_name(self):
        """The class Keras 3 records this operation as (``Add``, ``GetItem``, ...)."""
        return KERAS_CLASSES[self.operation]

    def _call_symbolic(self, inputs, args, kwargs):
        self._operands = args   # for _output_dtype: Keras' promotion of all operands
        try:
            return super()._call_symbolic(inputs, args, kwargs)
        finally:
            del self._operands

    def _output_dtype(self, inputs):
        if self.operation in _BOOLEAN:
            return "bool"
        if self.operation in _SAME_DTYPE:
            return inputs.dtype
        dtypes = [_promotion_dtype(value) for value in (inputs, *self._operands)]
        if self.operation == "true_divide":
            dtypes.append(float)
        try:
            return result_type(*dtypes)
        except ValueError:   # no promotion path (strings): the op will tell when it runs
            return inputs.dtype

    def get_config(self):
        config = super().get_config()
        config.update(operation=self.operation, reverse=self.reverse)
        return config


def _promotion_dtype(value):
    """An operand's dtype for :func:`result_type` (Python numbers are weakly typed)."""
    dtype = getattr(value, "dtype", None)
    if dtype is not None:
        return dtype
    # Python numbers; a list constant becomes a floatx() array when the model runs
    return type(value) if isinstance(value, (bool, int, float)) else None


def apply_operation(operation, tensor, *operands, reverse=False):
    """``operation`` on the symbolic ``tensor`` (and constant or symbolic ``operands``):
    the output of a new :class:`TensorOperation` layer's node."""
    return TensorOperation(operation, reverse=reverse)(tensor, *operands)


def _operator(operation, reverse=False):
    """A ``SymbolicTensor`` operator method applying Keras' ``operation``."""
    def method(self, *operands):
        return apply_operation(operation, self, *operands, reverse=reverse)
    method.__name__ = operation
    return method


def _get_item(self, key):
    return apply_operation("get_item", self, key if isinstance(key, tuple) else (key,))


for _dunder, _operation in (("add", "add"), ("sub", "subtract"), ("mul", "multiply"),
                            ("truediv", "true_divide"), ("matmul", "matmul"), ("pow", "power"),
                            ("floordiv", "floor_divide"), ("mod", "mod"),
                            ("and", "logical_and"), ("or", "logical_or"),
                            ("xor", "logical_xor")):
    setattr(SymbolicTensor, f"__{_dunder}__", _operator(_operation))
    setattr(SymbolicTensor, f"__r{_dunder}__", _operator(_operation, reverse=True))
# ``!=`` records an operation and ``==`` compares identities, as on Keras' KerasTensor
# (symbolic tensors stay hashable and usable in lists).
for _dunder, _operation in (("neg", "negative"), ("abs", "absolute"), ("lt", "less"),
                            ("le", "less_equal"), ("gt", "greater"), ("ge", "greater_equal"),
                            ("ne", "not_equal"), ("invert", "logical_not")):
    setattr(SymbolicTensor, f"__{_dunder}__", _operator(_operation))
SymbolicTensor.__getitem__ = _get_item


# ---------------------------------------------------------------- Keras' config entries
def keras_operation_entry(layer, inbound_nodes):
    """``layer`` (a :class:`TensorOperation`) as Keras 3 writes an operation in a
    functional config: ``{"module": "keras.src.ops.numpy", "class_name": "Add", ...}``,
    its nodes' arguments in Keras' order (``1.0 - x``: ``[1.0, x]``)."""
    if layer.reverse:
        inbound_nodes = [{**node, "args": [*node["args"][1:], node["args"][0]]}
                         for node in inbound_nodes]
    return {"module": KERAS_MODULE, "class_name": layer.keras_class_name,
            "config": {"name": layer.name}, "registered_name": layer.keras_class_name,
            "name": layer.name, "inbound_nodes": inbound_nodes}


def is_keras_operation_entry(entry):
    """Whether a functional config's ``entry`` is one of Keras' operations lamina knows
    (an explicit allow-list of ``keras.src.ops.numpy`` classes; nothing is imported)."""
    return isinstance(entry, dict) and entry.get("module") == KERAS_MODULE and \
        entry.get("class_name") in _OPERATION_OF_CLASS


def operation_from_keras_entry(entry, is_tensor_reference):
    """The :class:`TensorOperation` and the node list (in lamina's argument order: the
    symbolic tensor first) of a Keras operation ``entry``; ``is_tensor_reference(value)``
    tells a serialized symbolic tensor from a constant."""
    operation = _OPERATION_OF_CLASS[entry["class_name"]]
    config = entry.get("config") or {}
    nodes = list(entry.get("inbound_nodes") or [])
    args = nodes[0].get("args", []) if nodes else []
    reverse = len(args) == 2 and not is_tensor_reference(args[0]) and \
        is_tensor_reference(args[1])
    if reverse:
        nodes = [{**node, "args": [node["args"][1], node["args"][0]]} for node in nodes]
    layer = TensorOperation(operation, reverse=reverse, name=config.get("name")
                            or entry.get("name"))
    return layer, nodes

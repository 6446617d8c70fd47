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

import numpy as np

from ..backends import ops
from ..backends.state import floatx
from .base import LAYERS, Layer
from .naming import unique_name
from .symbolic import SymbolicTensor

# Keras' operation names (the ``keras.ops`` function each ``KerasTensor`` operator calls).
OPERATIONS = {
    "add": ops.add, "subtract": ops.subtract, "multiply": ops.multiply,
    "true_divide": ops.true_divide, "matmul": ops.matmul, "power": ops.power,
    "negative": ops.negative, "absolute": ops.absolute, "get_item": ops.getitem,
    "less": ops.less, "less_equal": ops.less_equal, "greater": ops.greater,
    "greater_equal": ops.greater_equal,
}
_COMPARISONS = ("less", "less_equal", "greater", "greater_equal")


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

    def _output_dtype(self, inputs):
        if self.operation in _COMPARISONS:
            return "bool"
        kind = np.dtype(inputs.dtype).kind
        if self.operation == "true_divide" and kind in "biu":
            return floatx()
        return inputs.dtype

    def get_config(self):
        config = super().get_config()
        config.update(operation=self.operation, reverse=self.reverse)
        return config


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
                            ("truediv", "true_divide"), ("matmul", "matmul"), ("pow", "power")):
    setattr(SymbolicTensor, f"__{_dunder}__", _operator(_operation))
    setattr(SymbolicTensor, f"__r{_dunder}__", _operator(_operation, reverse=True))
for _dunder, _operation in (("neg", "negative"), ("abs", "absolute"), ("lt", "less"),
                            ("le", "less_equal"), ("gt", "greater"), ("ge", "greater_equal")):
    setattr(SymbolicTensor, f"__{_dunder}__", _operator(_operation))
SymbolicTensor.__getitem__ = _get_item

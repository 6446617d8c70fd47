"""The ONNX converter registry: which function turns a layer class into ONNX nodes.

The converter modules (:mod:`.onnx_layers`, :mod:`.onnx_sequence`) register into it with
:func:`converts` and build on its small helpers; :mod:`.onnx` imports them (so that they
register) and looks converters up in :data:`CONVERTERS`. Keeping the table here lets the
converters and the exporter import it without importing each other.
"""

import numpy as np


class ExportError(ValueError):
    """A model or layer that ONNX export cannot express."""


def unsupported(layer, why):
    """An :class:`ExportError` naming ``layer`` and why it cannot be exported."""
    return ExportError(f"ONNX export: layer '{layer.name}' ({type(layer).__name__}) cannot "
                       f"be exported: {why}")


#: ``{layer class: converter(builder, layer, inputs, shapes, node) -> [output names]}``.
CONVERTERS = {}


def converts(*classes):
    """Register the decorated converter for ``classes`` (exact types)."""
    def register(function):
        for cls in classes:
            CONVERTERS[cls] = function
        return function
    return register


def weight(variable):
    """A weight's value as float32 NumPy."""
    return np.asarray(variable.numpy(), dtype=np.float32)


__all__ = ["CONVERTERS", "ExportError", "converts", "unsupported", "weight"]

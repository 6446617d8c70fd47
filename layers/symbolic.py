"""Symbolic tensors and nodes: what calling a layer on ``Input(...)`` records for the
functional API. A model walks these nodes; no array is computed here (the tracing helpers
at the end make the zero placeholders that find output shapes)."""

import numpy as np

from ..backends import state
from ..backends.autodiff import Tensor
# The nesting utilities of keras.tree; ``pack_like`` is the name the models use.
from ..backends.tree import flatten, map_structure  # noqa: F401  (re-exported)
from ..backends.tree import pack_sequence_as as pack_like  # noqa: F401


class SymbolicTensor:
    """A placeholder with a shape (batch axis ``None``) and dtype, produced by ``Input`` or
    by calling a layer on symbolic tensors (``lamina.KerasTensor``, Keras' name).

    Attributes:
        shape: tuple of ints or ``None``.
        dtype: dtype name.
        node: the :class:`Node` that produced it.
        index: which output of that node it is.

    Its operators (``+``, ``-``, ``*``, ``/``, ``@``, ``**``, unary ``-``, ``abs``,
    ``<``..., ``[]``) are installed by :mod:`lamina.layers.symbolic_operations`.
    """

    # ``_keras_mask``: the symbolic mask a masking layer attached (as Keras' KerasTensor).
    __slots__ = ("shape", "dtype", "node", "index", "name", "_keras_mask")

    def __init__(self, shape, dtype="float32", node=None, index=0, name=None):
        self.shape = tuple(shape)
        self.dtype = dtype
        self.node = node
        self.index = index
        self.name = name

    @property
    def ndim(self):
        return len(self.shape)

    def __repr__(self):
        layer = self.node.layer.name if self.node is not None else None
        return f"<SymbolicTensor shape={self.shape} dtype={self.dtype} from layer={layer!r}>"

    def __iter__(self):
        # without this, ``list(x)`` would index ``x[0], x[1], ...`` forever (``[]`` records
        # a layer per call); Keras' KerasTensor refuses iteration too
        raise NotImplementedError(f"iterating over a symbolic tensor is not supported: {self!r}")


class Node:
    """One call of a layer on symbolic inputs.

    Attributes:
        layer: the layer called.
        args: the call's positional arguments (tensors, lists/dicts of tensors, constants).
        kwargs: the call's keyword arguments (symbolic tensors allowed, e.g. ``mask=``).
        outputs: flat list of output :class:`SymbolicTensor`.
    """

    __slots__ = ("layer", "args", "kwargs", "outputs")

    def __init__(self, layer, args, kwargs):
        self.layer = layer
        self.args = tuple(args)
        self.kwargs = dict(kwargs)
        self.outputs = []

    @property
    def flat_inputs(self):
        """Every symbolic tensor among the call's arguments, in order."""
        leaves = flatten(list(self.args)) + flatten(self.kwargs)
        return [leaf for leaf in leaves if isinstance(leaf, SymbolicTensor)]

    @property
    def parents(self):
        """Nodes producing this node's inputs."""
        return [t.node for t in self.flat_inputs]


def is_symbolic(value):
    """True when ``value`` is, or (for lists/tuples/dicts) holds, a symbolic tensor."""
    if isinstance(value, SymbolicTensor):
        return True
    if isinstance(value, (list, tuple)):
        return any(isinstance(v, SymbolicTensor) for v in value)
    if isinstance(value, dict):
        return any(isinstance(v, SymbolicTensor) for v in value.values())
    return False


def is_shape(value):
    """True for one shape (a tuple/list of ints or None), False for a list of shapes."""
    return isinstance(value, (tuple, list)) and all(
        v is None or isinstance(v, int) for v in value)


# ---------------------------------------------------------------------------- tracing
def flat_shapes(structure):
    """The shapes in a structure of shapes (dicts by sorted key), as a flat list."""
    if is_shape(structure):
        return [tuple(structure)]
    if isinstance(structure, dict):
        return [s for key in sorted(structure) for s in flat_shapes(structure[key])]
    return [s for item in structure for s in flat_shapes(item)]


def rebuild_shapes(structure, leaves):
    """``structure`` of shapes with each shape replaced by the next of ``leaves``."""
    if is_shape(structure):
        return next(leaves)
    if isinstance(structure, dict):
        return {key: rebuild_shapes(structure[key], leaves) for key in sorted(structure)}
    return [rebuild_shapes(item, leaves) for item in structure]


def merge_traced_shapes(first, second):
    """Two traces' shapes merged: axes that differ between them are unknown (None)."""
    if is_shape(first):
        return tuple(a if a == b else None for a, b in zip(first, second))
    return [merge_traced_shapes(a, b) for a, b in zip(first, second)]


def placeholders(structure, unknown):
    """``structure`` with each SymbolicTensor replaced by a Tensor of its shape (unknown
    axes set to ``unknown``): zeros, or ones for boolean masks."""
    xp = state.backend().xp

    def placeholder(leaf):
        if not isinstance(leaf, SymbolicTensor):
            return leaf
        shape = tuple(unknown if s is None else s for s in leaf.shape)
        if leaf.dtype == "string":          # text stays a host NumPy array
            return np.full(shape, "", dtype=object)
        fill = xp.ones if np.dtype(leaf.dtype) == np.bool_ else xp.zeros
        return Tensor(fill(shape, dtype=leaf.dtype))

    return map_structure(placeholder, structure)

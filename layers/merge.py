"""Merge layers: combine a list of tensors into one (``Add``, ``Subtract``, ``Multiply``,
``Average``, ``Maximum``, ``Minimum``, ``Concatenate``, ``Dot``).

Every merge layer takes a list of tensors, checks their shapes once per call (a mismatch
raises a ``ValueError`` naming the layer) and combines the masks of masked inputs.

Example:
    >>> merged = layers.Concatenate()([branch_a, branch_b])
"""

import functools

from ..backends import ops, state
from ..backends.autodiff import Tensor
from ..backends.ops.core import index_data
from .base import LAYERS, Layer
from .symbolic import is_shape


def _mask_data(mask):
    return index_data(mask).astype(bool)


class _Merge(Layer):
    """Base of the merge layers: input-list and shape checks, output shape, masks.

    Subclasses implement ``_merge(tensors)`` and may override ``_output_shape(shapes)``
    (which also validates the shapes) and the input-count bounds.
    """

    supports_masking = True
    _min_inputs = 1
    _max_inputs = None

    def _shapes(self, inputs_or_shapes, symbolic=False):
        items = inputs_or_shapes
        if is_shape(items) or not isinstance(items, (list, tuple)):
            raise ValueError(f"Layer '{self.name}' ({type(self).__name__}) must be called on "
                             f"a list of tensors, got {type(items).__name__}")
        count = len(items)
        if count < self._min_inputs or (self._max_inputs and count > self._max_inputs):
            expected = (f"exactly {self._min_inputs}" if self._min_inputs == self._max_inputs
                        else f"at least {self._min_inputs}")
            raise ValueError(f"Layer '{self.name}' ({type(self).__name__}) needs {expected} "
                             f"inputs, got {count}")
        return [tuple(item) if symbolic else tuple(item.shape) for item in items]

    def _mismatch(self, shapes, what="matching shapes"):
        return ValueError(f"Layer '{self.name}' ({type(self).__name__}) needs inputs of "
                          f"{what}, got shapes {[tuple(s) for s in shapes]}")

    def build(self, input_shape):
        self._output_shape(self._shapes(input_shape, symbolic=True))
        self.built = True

    def call(self, inputs):
        inputs = list(inputs)
        self._output_shape(self._shapes(inputs))
        return self._merge(inputs)

    def compute_output_shape(self, input_shape):
        return self._output_shape(self._shapes(input_shape, symbolic=True))

    def _output_shape(self, shapes):
        """Elementwise merges: same rank, sizes equal or 1 (broadcast) on every axis."""
        rank = len(shapes[0])
        if any(len(shape) != rank for shape in shapes):
            raise self._mismatch(shapes, "the same rank")
        output = []
        for sizes in zip(*shapes):
            known = {s for s in sizes if s is not None}
            if len(known - {1}) > 1:
                raise self._mismatch(shapes)
            if None in sizes and not known - {1}:
                output.append(None)
            else:
                output.append(max(known) if known else None)
        return tuple(output)

    def _merge(self, inputs):
        raise NotImplementedError

    def compute_mask(self, inputs, mask=None):
        if mask is None:
            return None
        masks = [_mask_data(m) for m in mask if m is not None]
        if not masks:
            return None
        return Tensor(functools.reduce(lambda a, b: a & b, masks))


@LAYERS.register()
class Add(_Merge):
    """Elementwise sum of the inputs (same shapes, or broadcastable size-1 axes)."""

    def _merge(self, inputs):
        return functools.reduce(ops.add, inputs)


@LAYERS.register()
class Subtract(_Merge):
    """``inputs[0] - inputs[1]`` (exactly two inputs)."""

    _min_inputs = _max_inputs = 2

    def _merge(self, inputs):
        return ops.subtract(inputs[0], inputs[1])


@LAYERS.register()
class Multiply(_Merge):
    """Elementwise product of the inputs."""

    def _merge(self, inputs):
        return functools.reduce(ops.multiply, inputs)


@LAYERS.register()
class Average(_Merge):
    """Elementwise mean of the inputs."""

    def _merge(self, inputs):
        return ops.multiply(functools.reduce(ops.add, inputs), 1.0 / len(inputs))


@LAYERS.register()
class Maximum(_Merge):
    """Elementwise maximum of the inputs."""

    def _merge(self, inputs):
        return functools.reduce(ops.maximum, inputs)


@LAYERS.register()
class Minimum(_Merge):
    """Elementwise minimum of the inputs."""

    def _merge(self, inputs):
        return functools.reduce(ops.minimum, inputs)


@LAYERS.register()
class Concatenate(_Merge):
    """Joins the inputs along ``axis`` (default the last); other axes must match."""

    def __init__(self, axis=-1, name=None, trainable=True, dtype=None, input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        self.axis = int(axis)

    def _output_shape(self, shapes):
        rank = len(shapes[0])
        if any(len(shape) != rank for shape in shapes) or not -rank <= self.axis < rank:
            raise self._mismatch(shapes, f"the same rank with an axis {self.axis}")
        axis = self.axis % rank
        output = []
        for position, sizes in enumerate(zip(*shapes)):
            if position == axis:
                output.append(None if None in sizes else sum(sizes))
                continue
            known = {s for s in sizes if s is not None}
            if len(known) > 1:
                raise self._mismatch(shapes, f"matching shapes except on axis {self.axis}")
            output.append(known.pop() if known else None)
        return tuple(output)

    def _merge(self, inputs):
        return ops.concatenate(inputs, axis=self.axis)

    def compute_mask(self, inputs, mask=None):
        if mask is None or all(m is None for m in mask):
            return None
        xp = state.backend().xp
        masks = []
        for tensor, m in zip(inputs, mask):
            shape = tuple(tensor.shape)
            if m is None:
                masks.append(xp.ones(shape, dtype=bool))
                continue
            data = _mask_data(m)
            if data.ndim < len(shape):
                data = xp.broadcast_to(data[..., None], shape)
            masks.append(data)
        return Tensor(xp.concatenate(masks, axis=self.axis).any(axis=-1))

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}


@LAYERS.register()
class Dot(_Merge):
    """Batched dot product of two inputs along ``axes`` (Keras' ``batch_dot``).

    Args:
        axes: an int (the same axis of both inputs) or a pair ``(axis_1, axis_2)``; the
            batch axis 0 cannot be contracted.
        normalize: L2-normalize both inputs along ``axes`` first (cosine similarity).

    Shapes: (batch, n) and (batch, n) -> (batch, 1); (batch, t, n) and (batch, s, n) with
    ``axes=2`` -> (batch, t, s).
    """

    _min_inputs = _max_inputs = 2

    def __init__(self, axes, normalize=False, name=None, trainable=True, dtype=None,
                 input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        if isinstance(axes, (list, tuple)):
            if len(axes) != 2:
                raise ValueError(f"Layer '{self.name}' (Dot) needs axes as an int or a pair, "
                                 f"got {axes!r}")
            axes = [int(a) for a in axes]
        else:
            axes = int(axes)
        self.axes = axes
        self.normalize = bool(normalize)

    def resolved_axes(self, shapes):
        pair = self.axes if isinstance(self.axes, list) else [self.axes, self.axes]
        resolved = [axis % len(shape) if -len(shape) <= axis < len(shape) else None
                    for axis, shape in zip(pair, shapes)]
        if any(axis in (None, 0) for axis in resolved):
            raise self._mismatch(shapes, f"rank >= 2 with non-batch axes {self.axes}")
        return resolved

    def _output_shape(self, shapes):
        if any(len(shape) < 2 for shape in shapes):
            raise self._mismatch(shapes, "rank >= 2")
        first, second = (list(s) for s in shapes)
        a1, a2 = self.resolved_axes(shapes)
        if None not in (first[a1], second[a2]) and first[a1] != second[a2]:
            raise self._mismatch(shapes, f"equal sizes on the dot axes {self.axes}")
        if None not in (first[0], second[0]) and first[0] != second[0]:
            raise self._mismatch(shapes, "the same batch size")
        first.pop(a1)
        second.pop(a2)
        output = first + second[1:]
        return tuple(output + [1] if len(output) == 1 else output)

    def _merge(self, inputs):
        x1, x2 = inputs
        a1, a2 = self.resolved_axes([x1.shape, x2.shape])
        if self.normalize:
            x1, x2 = _l2_normalize(x1, a1), _l2_normalize(x2, a2)
        rest1 = [i for i in range(1, x1.ndim) if i != a1]
        rest2 = [i for i in range(1, x2.ndim) if i != a2]
        batch, size = x1.shape[0], x1.shape[a1]
        left = ops.reshape(ops.transpose(x1, [0] + rest1 + [a1]), (batch, -1, size))
        right = ops.reshape(ops.transpose(x2, [0, a2] + rest2), (batch, size, -1))
        out_shape = [x1.shape[i] for i in rest1] + [x2.shape[i] for i in rest2]
        return ops.reshape(ops.matmul(left, right), (batch, *(out_shape or [1])))

    def compute_mask(self, inputs, mask=None):
        return None

    def get_config(self):
        return {**super().get_config(), "axes": self.axes, "normalize": self.normalize}


def _l2_normalize(x, axis):
    squared = ops.sum(ops.square(x), axis=axis, keepdims=True)
    return ops.divide(x, ops.sqrt(ops.maximum(squared, 1e-12)))


# ------------------------------------------------------------------ functional helpers
# Keras' lower-case forms: each builds the layer (``kwargs``: the base Layer's arguments,
# such as ``name``) and calls it on ``inputs``, symbolic or eager.
def add(inputs, **kwargs):
    """``Add(**kwargs)(inputs)``: the elementwise sum of a list of tensors."""
    return Add(**kwargs)(inputs)


def subtract(inputs, **kwargs):
    """``Subtract(**kwargs)(inputs)``: ``inputs[0] - inputs[1]``."""
    return Subtract(**kwargs)(inputs)


def multiply(inputs, **kwargs):
    """``Multiply(**kwargs)(inputs)``: the elementwise product of a list of tensors."""
    return Multiply(**kwargs)(inputs)


def average(inputs, **kwargs):
    """``Average(**kwargs)(inputs)``: the elementwise mean of a list of tensors."""
    return Average(**kwargs)(inputs)


def maximum(inputs, **kwargs):
    """``Maximum(**kwargs)(inputs)``: the elementwise maximum of a list of tensors."""
    return Maximum(**kwargs)(inputs)


def minimum(inputs, **kwargs):
    """``Minimum(**kwargs)(inputs)``: the elementwise minimum of a list of tensors."""
    return Minimum(**kwargs)(inputs)


def concatenate(inputs, axis=-1, **kwargs):
    """``Concatenate(axis=axis, **kwargs)(inputs)``: the tensors joined along ``axis``."""
    return Concatenate(axis=axis, **kwargs)(inputs)


def dot(inputs, axes=-1, normalize=False, **kwargs):
    """``Dot(axes=axes, normalize=normalize, **kwargs)(inputs)``: the batched dot product
    of two tensors along ``axes``."""
    return Dot(axes=axes, normalize=normalize, **kwargs)(inputs)

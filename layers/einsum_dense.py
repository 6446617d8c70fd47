"""``EinsumDense``: a dense layer whose contraction is an einsum equation (Keras 3's
arguments, weights ``kernel`` and ``bias``, and config).

Where the equation is a plain contraction (every input axis is either kept or contracted
with the kernel, the kernel shares no axis with both the input and the output) the layer
runs as ONE fused dense op: the input's contracted axes are moved last and flattened, the
kernel is viewed as a (contracted, output) matrix, and the result is unfolded (and
transposed where the output's axis order asks). Other equations run through
``ops.einsum``.
"""

import math
import re

from ..backends import ops
from .options import activations as activations_module
from .options import initializers as initializers_module
from .options import regularizers as regularizers_module
from .options import weight_options
from .base import LAYERS, InputSpec, Layer
from .arguments import layer_error

_FUSED = {"linear", "relu", "sigmoid", "tanh"}
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_FORMS = ((re.compile(r"([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)"), None),
          (re.compile(r"\.\.\.([a-zA-Z]+),([a-zA-Z]+)->\.\.\.([a-zA-Z]+)"), "left"),
          (re.compile(r"([a-zA-Z]{2,})\.\.\.,([a-zA-Z]+)->([a-zA-Z]+)\.\.\."), "right"))


class EinsumPlan:
    """Keras' reading of an EinsumDense equation for one input shape.

    Attributes: ``equation`` (the ellipsis spelled out as letters), ``kernel_shape``,
    ``bias_shape`` (None without ``bias_axes``), ``output_shape`` (with the batch axis;
    unknown sizes taken from the input where an axis is shared), ``input_axes`` and
    ``output_axes`` (the kernel axes contracted with the input and those kept, the fans of
    a variance-scaling initializer), and ``gemm`` (None, or the permutations of the fast
    path: see :meth:`_gemm_plan`).
    """

    def __init__(self, equation, bias_axes, input_shape, partial_output_shape, owner):
        for pattern, elided_side in _FORMS:
            found = pattern.fullmatch(equation)
            if found:
                break
        else:
            raise layer_error(owner, f"needs an equation of the form 'X,Y->Z', '...X,Y->...Z' "
                                     f"or 'X...,Y->Z...', got {equation!r}")
        in_spec, weight_spec, out_spec = found.groups()
        input_shape = tuple(input_shape)
        elided = len(input_shape) - len(in_spec)
        if elided < 0 or (elided_side is None and elided != 0):
            raise layer_error(owner, f"equation {equation!r} expects input of rank "
                                     f"{len(in_spec)}, got input shape {input_shape}")
        spare = "".join(c for c in _LETTERS if c not in in_spec + weight_spec + out_spec)
        ellipsis = spare[:elided]
        full_in, full_out = ((ellipsis + in_spec, ellipsis + out_spec) if elided_side == "left"
                             else (in_spec + ellipsis, out_spec + ellipsis))
        partial = list(partial_output_shape)
        if elided_side == "left":
            output = list(input_shape[:elided]) + partial
        else:
            output = [input_shape[0]] + partial + list(input_shape[len(in_spec):])
        if len(output) != len(full_out):
            raise layer_error(owner, f"equation {equation!r} has {len(out_spec)} output axes "
                                     f"(the first is the batch's), got output_shape "
                                     f"{tuple(partial_output_shape)}")
        sizes = dict(zip(full_in, input_shape))
        for i, axis in enumerate(full_out):
            if axis in sizes:
                if output[i] is not None and sizes[axis] is not None \
                        and output[i] != sizes[axis]:
                    raise layer_error(owner, f"input shape {input_shape} and output_shape "
                                             f"{tuple(partial_output_shape)} differ at the "
                                             f"shared axis '{axis}' ({sizes[axis]} vs "
                                             f"{output[i]})")
                output[i] = sizes[axis] if output[i] is None else output[i]
            elif axis not in weight_spec:
                raise layer_error(owner, f"output axis '{axis}' of {equation!r} is in neither "
                                         "the input nor the kernel")
        out_sizes = dict(zip(full_out, output))
        kernel_shape, self.input_axes, self.output_axes = [], [], []
        for i, axis in enumerate(weight_spec):
            if axis in out_sizes:
                kernel_shape.append(out_sizes[axis])
                self.output_axes.append(i)
            elif axis in sizes:
                kernel_shape.append(sizes[axis])
                self.input_axes.append(i)
            else:
                raise layer_error(owner, f"kernel axis '{axis}' of {equation!r} is in neither "
                                         "the input nor the output")
        if any(size is None for size in kernel_shape):
            raise layer_error(owner, f"needs known sizes for the kernel axes "
                                     f"'{weight_spec}', got input shape {input_shape} and "
                                     f"output_shape {tuple(partial_output_shape)}")
        self.kernel_shape = tuple(kernel_shape)
        self.bias_shape = None
        if bias_axes is not None:
            unknown = [c for c in bias_axes if c not in out_spec]
            if unknown:
                raise layer_error(owner, f"bias_axes {bias_axes!r}: axis '{unknown[0]}' is not "
                                         f"in the output '{out_spec}'")
            first = min(out_spec.index(c) for c in bias_axes)
            self.bias_shape = tuple(out_sizes[c] if c in bias_axes else 1
                                    for c in out_spec[first:])
            if elided_side == "right":
                self.bias_shape += (1,) * elided
        self.output_shape = tuple(output)
        self.equation = f"{full_in},{weight_spec}->{full_out}"
        self.gemm = self._gemm_plan(full_in, weight_spec, full_out)

    @staticmethod
    def _gemm_plan(full_in, weight, full_out):
        """``(input_perm, kept, kernel_perm, n_contracted, output_perm)`` when the equation
        is one GEMM: every input axis kept or contracted (not both), every kernel axis
        contracted or output, no axis repeated; else None."""
        if any(len(set(s)) != len(s) for s in (full_in, weight, full_out)):
            return None
        kept = [c for c in full_in if c in full_out and c not in weight]
        contracted = [c for c in weight if c in full_in and c not in full_out]
        produced = [c for c in weight if c in full_out and c not in full_in]
        if len(kept) + len(contracted) != len(full_in) or \
                len(contracted) + len(produced) != len(weight) or \
                len(kept) + len(produced) != len(full_out):
            return None
        input_perm = tuple(full_in.index(c) for c in kept + contracted)
        kernel_perm = tuple(weight.index(c) for c in contracted + produced)
        order = kept + produced
        output_perm = tuple(order.index(c) for c in full_out)
        return input_perm, len(kept), kernel_perm, len(contracted), output_perm


def _identity(perm):
    return perm == tuple(range(len(perm)))


@LAYERS.register()
class EinsumDense(Layer):
    """A dense layer of any rank, as ``keras.layers.EinsumDense``: ``activation(einsum(
    equation, inputs, kernel) + bias)``.

    Args:
        equation: ``"ab,bc->ac"``, ``"...b,bc->...c"`` or ``"ab...,bc->ac..."`` forms
            (input, kernel, output).
        output_shape: the output's shape without the batch axis and the elided ones (an
            int for one axis); ``None`` entries take the input's size on a shared axis.
        activation: name or callable (``None``: linear).
        bias_axes: output axes (letters of the equation's output) the bias spans.
        kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
        activity_regularizer, kernel_constraint, bias_constraint: as ``Dense``'s. A
            variance-scaling kernel initializer counts its fans over the kernel's
            contracted and output axes, as in Keras.

    Weights: ``kernel`` (the equation's kernel axes), ``bias`` (``bias_axes``, broadcast
    over the output). Example:

        >>> layer = EinsumDense("abc,cd->abd", output_shape=(None, 64), bias_axes="d")
        >>> layer(np.zeros((2, 32, 128), "float32")).shape
        (2, 32, 64)
    """

    def __init__(self, equation, output_shape, activation=None, bias_axes=None,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, name=None, trainable=True,
                 dtype=None, input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        if not isinstance(equation, str):
            raise layer_error(self, f"needs equation as a string, got {equation!r}")
        if isinstance(output_shape, int):
            output_shape = (output_shape,)
        if not isinstance(output_shape, (list, tuple)) or any(
                d is not None and (not isinstance(d, int) or isinstance(d, bool) or d <= 0)
                for d in output_shape):
            raise layer_error(self, f"needs output_shape as an int or a list of positive "
                                    f"ints and None, got {output_shape!r}")
        if bias_axes is not None and not isinstance(bias_axes, str):
            raise layer_error(self, f"needs bias_axes as a string of output axes, got "
                                    f"{bias_axes!r}")
        self.equation = equation
        self.partial_output_shape = tuple(output_shape)
        self.bias_axes = bias_axes
        self.activation = activations_module.get(activation)
        self._activation_name = activations_module.serialize(self.activation)
        weight_options.store(self, "kernel", kernel_initializer, kernel_regularizer,
                             kernel_constraint)
        weight_options.store(self, "bias", bias_initializer, bias_regularizer, bias_constraint)
        self.activity_regularizer = regularizers_module.get(activity_regularizer)
        self._plan = None

    def _analyze(self, input_shape):
        return EinsumPlan(self.equation, self.bias_axes, input_shape,
                          self.partial_output_shape, self)

    def build(self, input_shape):
        plan = self._analyze(input_shape)
        initializer = self.kernel_initializer
        if isinstance(initializer, initializers_module.VarianceScaling) and (
                initializer.input_axes is None or initializer.output_axes is None):
            config = {**initializer.get_config(), "input_axes": plan.input_axes,
                      "output_axes": plan.output_axes}
            initializer = type(initializer).from_config(config)
        self.kernel = self.add_weight(plan.kernel_shape, initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint, name="kernel")
        self.bias = (None if plan.bias_shape is None else
                     self.add_weight(plan.bias_shape, self.bias_initializer,
                                     regularizer=self.bias_regularizer,
                                     constraint=self.bias_constraint, name="bias"))
        self.input_spec = InputSpec(ndim=len(input_shape))
        self._plan = plan
        self.built = True

    def call(self, inputs):
        plan = self._plan
        if plan.gemm is None:
            return self._epilogue(ops.einsum(plan.equation, inputs, self.kernel))
        input_perm, n_kept, kernel_perm, n_contracted, output_perm = plan.gemm
        x = inputs if _identity(input_perm) else ops.transpose(inputs, input_perm)
        kept_shape = tuple(x.shape[:n_kept])
        contracted = math.prod(self.kernel.shape[a] for a in kernel_perm[:n_contracted])
        produced = tuple(self.kernel.shape[a] for a in kernel_perm[n_contracted:])
        x = ops.reshape(x, kept_shape + (contracted,))
        kernel = self.kernel if _identity(kernel_perm) else ops.transpose(self.kernel,
                                                                          kernel_perm)
        kernel = ops.reshape(kernel, (contracted, math.prod(produced)))
        fuse_bias = _identity(output_perm) and (self.bias is None
                                                or tuple(self.bias.shape) == produced)
        if fuse_bias and self._activation_name in _FUSED:
            bias = None if self.bias is None else ops.reshape(self.bias, (-1,))
            y = ops.dense(x, kernel, bias, self._activation_name)
            return ops.reshape(y, kept_shape + produced)
        y = ops.reshape(ops.dense(x, kernel), kept_shape + produced)
        if not _identity(output_perm):
            y = ops.transpose(y, output_perm)
        return self._epilogue(y)

    def _epilogue(self, y):
        if self.bias is not None:
            y = ops.add(y, self.bias)
        return y if self._activation_name == "linear" else self.activation(y)

    def compute_output_shape(self, input_shape):
        return self._analyze(input_shape).output_shape

    def get_config(self):
        return {**super().get_config(), "output_shape": list(self.partial_output_shape),
                "equation": self.equation, "activation": self._activation_name,
                "bias_axes": self.bias_axes,
                **weight_options.config(self, "kernel", "bias"),
                "activity_regularizer": regularizers_module.serialize(self.activity_regularizer)}

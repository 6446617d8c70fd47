"""``lamina.ops``: the differentiable op set, with ``keras.ops`` names.

Every op takes Tensors, NumPy/engine arrays or Python numbers, runs on the active engine,
and records its backward when an input needs a gradient. A layer written only with these
ops gets gradients for free.

Example:
    >>> from lamina import ops
    >>> y = ops.sum(ops.relu(x) * 3.0)
"""

from ..autodiff import Tensor
from .conv import average_pool, conv, conv_transpose, depthwise_conv, max_pool, pool
from .math import (abs, add, argmax, argmin, cast, clip, divide, equal, exp, greater,
                   greater_equal, less, less_equal, log, log1p, matmul, max, maximum, mean,
                   min, minimum, multiply, negative, not_equal, power, sqrt, square, std, sum,
                   subtract, tanh, var, where)
from .nn import (batch_normalization_train, dense, dropout, elu, gelu, layer_normalization,
                 leaky_relu, log_softmax, relu, relu6, selu, sigmoid, silu, softmax,
                 softplus)
from .losses import mean_squared_error, softmax_cross_entropy, sparse_softmax_cross_entropy
from .recurrent import gru, lstm, simple_rnn
from .shape import (concatenate, expand_dims, getitem, one_hot, pad, reshape, shape, split,
                    squeeze, stack, take, transpose)
from .activations import (celu, glu, hard_shrink, hard_sigmoid, hard_silu, hard_swish,
                          hard_tanh, log_sigmoid, soft_shrink, softsign, sparse_plus,
                          sparse_sigmoid, sparsemax, squareplus, tanh_shrink, threshold)


def convert_to_tensor(x, dtype=None):
    """``x`` as a Tensor (no copy when it already is one of the right dtype)."""
    if isinstance(x, Tensor) and (dtype is None or x.dtype == dtype):
        return x
    return Tensor(x, dtype=dtype)


__all__ = [  # the ops (not Tensor: that is lamina.Tensor)
    "abs", "add", "argmax", "argmin", "average_pool", "batch_normalization_train", "cast",
    "clip", "concatenate", "conv", "conv_transpose", "convert_to_tensor", "dense",
    "depthwise_conv", "divide", "dropout", "elu", "equal", "exp", "expand_dims", "gelu",
    "getitem", "greater", "greater_equal", "gru", "layer_normalization", "leaky_relu",
    "less", "less_equal", "log", "log1p", "log_softmax", "lstm", "matmul", "max",
    "max_pool", "maximum", "mean", "mean_squared_error", "min", "minimum", "multiply",
    "negative", "not_equal", "one_hot", "pad", "pool", "power", "relu", "relu6", "reshape",
    "selu", "shape", "sigmoid", "silu", "simple_rnn", "softmax", "softmax_cross_entropy",
    "softplus", "sparse_softmax_cross_entropy", "split", "sqrt", "square", "squeeze",
    "stack", "std", "subtract", "sum", "take", "tanh", "transpose", "var", "where",
    "celu", "glu", "hard_shrink", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh",
    "log_sigmoid", "soft_shrink", "softsign", "sparse_plus", "sparse_sigmoid", "sparsemax",
    "squareplus", "tanh_shrink", "threshold",
]


def _swap(op):
    return lambda self, other: op(other, self)


Tensor.__add__ = add
Tensor.__radd__ = _swap(add)
Tensor.__sub__ = subtract
Tensor.__rsub__ = _swap(subtract)
Tensor.__mul__ = multiply
Tensor.__rmul__ = _swap(multiply)
Tensor.__truediv__ = divide
Tensor.__rtruediv__ = _swap(divide)
Tensor.__matmul__ = matmul
Tensor.__rmatmul__ = _swap(matmul)
Tensor.__pow__ = power
Tensor.__rpow__ = _swap(power)
Tensor.__neg__ = negative
Tensor.__abs__ = abs
Tensor.__getitem__ = getitem
Tensor.__lt__ = less
Tensor.__le__ = less_equal
Tensor.__gt__ = greater
Tensor.__ge__ = greater_equal
Tensor.reshape = lambda self, *shape_: reshape(
    self, shape_[0] if len(shape_) == 1 else shape_)
Tensor.T = property(lambda self: transpose(self))

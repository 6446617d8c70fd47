"""``lamina.ops``: the differentiable op set, with ``keras.ops`` names.

Every op takes Tensors, NumPy/engine arrays or Python numbers, runs on the active engine,
and records its backward when an input needs a gradient. A layer written only with these
ops gets gradients for free.

Example:
    >>> from lamina import ops
    >>> y = ops.sum(ops.relu(x) * 3.0)
"""

from ..autodiff import Tensor, Variable
from .adaptive_pooling import adaptive_average_pool, adaptive_max_pool
from .activations import (celu, glu, hard_shrink, hard_sigmoid, hard_silu, hard_swish,
                          hard_tanh, log_sigmoid, soft_shrink, softsign, sparse_plus,
                          sparse_sigmoid, sparsemax, squareplus, swish, tanh_shrink,
                          threshold)
from .attention import dot_product_attention
from .control_flow import (associative_scan, cond, custom_gradient, fori_loop, map, scan,
                           stop_gradient, switch, vectorized_map, while_loop)
from .conv import (average_pool, conv, conv_transpose, depth_to_space, depthwise_conv,
                   max_pool, pool, separable_conv, space_to_depth)
from .conversion import (array, cast, convert_to_numpy, convert_to_tensor, copy, dtype,
                         is_tensor, ndim, saturate_cast, size)
from .creation import (arange, bartlett, blackman, diag, diagflat, empty, empty_like, eye,
                       full, full_like, geomspace, hamming, hanning, identity, kaiser,
                       linspace, logspace, meshgrid, ones, ones_like, tri, tril, triu,
                       vander, zeros, zeros_like)
from .ctc import ctc_decode, ctc_loss
from .fft import fft, fft2, ifft2
from .elementwise import (abs, absolute, angle, arccos, arccosh, arcsin, arcsinh, arctan,
                          arctanh, cbrt, ceil, conj, conjugate, cos, cosh, deg2rad, erf,
                          erfc, exp, exp2, expm1, fabs, floor, imag, log, log10, log1p,
                          log2, nan_to_num, negative, rad2deg, real, reciprocal, round,
                          rsqrt, sign, sin, sinc, sinh, sqrt, square, tan, tanh, trunc)
from .indexing import (diagonal, multi_hot, one_hot, scatter, scatter_update, segment_max,
                       segment_min, segment_prod, segment_sum, slice, slice_update,
                       take_along_axis, trace, unravel_index)
from .linalg import (cholesky, cholesky_inverse, det, eig, eigh, inv, logdet, lstsq,
                     lu_factor, matrix_rank, norm, pinv, qr, slogdet, solve,
                     solve_triangular, svd)
from .logic import (allclose, equal, greater, greater_equal, isclose, isfinite, isin, isinf,
                    isnan, isneginf, isposinf, isreal, less, less_equal, logical_and,
                    logical_not, logical_or, logical_xor, nonzero, not_equal, select,
                    signbit, where)
from .losses import (binary_crossentropy, categorical_crossentropy, mean_squared_error,
                     softmax_cross_entropy, sparse_categorical_crossentropy,
                     sparse_softmax_cross_entropy)
from .math import (add, arctan2, bitwise_and, bitwise_invert, bitwise_left_shift,
                   bitwise_not, bitwise_or, bitwise_right_shift, bitwise_xor, clip, divide,
                   divide_no_nan, floor_divide, fmax, fmin, fmod, gcd, heaviside, hypot,
                   lcm, ldexp, left_shift, logaddexp, logaddexp2, matmul, maximum, minimum,
                   mod, multiply, nextafter, power, right_shift, subtract, true_divide)
from .nn import (batch_normalization_train, dense, dropout, elu, gelu, layer_normalization,
                 leaky_relu, log_softmax, relu, relu6, selu, sigmoid, silu, softmax,
                 softplus)
from .normalization import batch_normalization, moments, normalize, psnr, rms_normalization
from .products import cross, dot, einsum, inner, kron, outer, tensordot, vdot
from .recurrent import gru, lstm, simple_rnn
from .reductions import (all, amax, amin, any, argmax, argmin, average, count_nonzero,
                         cumprod, cumsum, diff, logsumexp, max, mean, median, min,
                         nanargmax, nanargmin, nancumprod, nancumsum, nanmax, nanmean,
                         nanmedian, nanmin, nanpercentile, nanprod, nanquantile, nanstd,
                         nansum, nanvar, percentile, prod, ptp, quantile, std, sum,
                         trapezoid, var)
from .shape import (append, array_split, broadcast_to, concatenate, dsplit, dstack,
                    expand_dims, flip, fliplr, flipud, getitem, hsplit, hstack, moveaxis,
                    pad, ravel, repeat, reshape, roll, rot90, shape, split, squeeze, stack,
                    swapaxes, take, tile, transpose, unstack, vsplit, vstack)
from .sorting import (argpartition, argsort, bincount, digitize, histogram, in_top_k,
                      searchsorted, sort, top_k, unique)
from .blocks import fold, unfold
from .control_flow import vectorize
from .conversion import view
from .einops import rearrange
from .elementwise import erfinv, i0
from .fft import irfft, rfft
from .pairwise import cdist, corrcoef
from .signal import correlate, extract_sequences, istft, stft


def get_item(x, key):
    """``x[key]`` (``keras.ops.get_item``; the same as :func:`getitem`)."""
    return getitem(x, key)


__all__ = [  # the ops (not Tensor: that is lamina.Tensor)
    "abs", "absolute", "add", "all", "allclose", "amax", "amin", "angle", "any", "append",
    "arange", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2", "arctanh",
    "argmax", "argmin", "argpartition", "argsort", "array", "array_split",
    "associative_scan", "average", "average_pool", "bartlett", "batch_normalization",
    "batch_normalization_train", "binary_crossentropy", "bincount", "bitwise_and",
    "bitwise_invert", "bitwise_left_shift", "bitwise_not", "bitwise_or",
    "bitwise_right_shift", "bitwise_xor", "blackman", "broadcast_to", "cast",
    "categorical_crossentropy", "cbrt", "ceil", "celu", "cholesky", "cholesky_inverse",
    "clip", "concatenate", "cond", "conj", "conjugate", "conv", "conv_transpose",
    "convert_to_numpy", "convert_to_tensor", "copy", "cos", "cosh", "count_nonzero",
    "cross", "cumprod", "cumsum", "custom_gradient", "deg2rad", "dense", "depth_to_space",
    "ctc_decode", "ctc_loss",
    "depthwise_conv", "det", "diag", "diagflat", "diagonal", "diff", "digitize", "divide",
    "divide_no_nan", "dot", "dot_product_attention", "dropout", "dsplit", "dstack", "dtype",
    "eig", "eigh", "einsum", "elu", "empty", "empty_like", "equal", "erf", "erfc", "exp",
    "fft", "fft2", "ifft2",
    "exp2", "expand_dims", "expm1", "eye", "fabs", "flip", "fliplr", "flipud", "floor",
    "floor_divide", "fmax", "fmin", "fmod", "fori_loop", "full", "full_like", "gcd", "gelu",
    "geomspace", "get_item", "getitem", "glu", "greater", "greater_equal", "gru", "hamming",
    "hanning", "hard_shrink", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh",
    "heaviside", "histogram", "hsplit", "hstack", "hypot", "identity", "imag", "in_top_k",
    "inner", "inv", "is_tensor", "isclose", "isfinite", "isin", "isinf", "isnan",
    "isneginf", "isposinf", "isreal", "kaiser", "kron", "layer_normalization", "lcm",
    "ldexp", "leaky_relu", "left_shift", "less", "less_equal", "linspace", "log", "log10",
    "log1p", "log2", "log_sigmoid", "log_softmax", "logaddexp", "logaddexp2", "logdet",
    "logical_and", "logical_not", "logical_or", "logical_xor", "logspace", "logsumexp",
    "lstm", "lstsq", "lu_factor", "map", "matmul", "matrix_rank", "max", "max_pool",
    "maximum", "mean", "mean_squared_error", "median", "meshgrid", "min", "minimum", "mod",
    "moments", "moveaxis", "multi_hot", "multiply", "nan_to_num", "nanargmax", "nanargmin",
    "nancumprod", "nancumsum", "nanmax", "nanmean", "nanmedian", "nanmin", "nanpercentile",
    "nanprod", "nanquantile", "nanstd", "nansum", "nanvar", "ndim", "negative", "nextafter",
    "nonzero", "norm", "normalize", "not_equal", "one_hot", "ones", "ones_like", "outer",
    "pad", "percentile", "pinv", "pool", "power", "prod", "psnr", "ptp", "qr", "quantile",
    "rad2deg", "ravel", "real", "reciprocal", "relu", "relu6", "repeat", "reshape",
    "right_shift", "rms_normalization", "roll", "rot90", "round", "rsqrt", "saturate_cast",
    "scan", "scatter", "scatter_update", "searchsorted", "segment_max", "segment_min",
    "segment_prod", "segment_sum", "select", "selu", "separable_conv", "shape", "sigmoid",
    "sign", "signbit", "silu", "simple_rnn", "sin", "sinc", "sinh", "size", "slice",
    "slice_update", "slogdet", "soft_shrink", "softmax", "softmax_cross_entropy",
    "softplus", "softsign", "solve", "solve_triangular", "sort", "space_to_depth",
    "sparse_categorical_crossentropy", "sparse_plus", "sparse_sigmoid",
    "sparse_softmax_cross_entropy", "sparsemax", "split", "sqrt", "square", "squareplus",
    "squeeze", "stack", "std", "stop_gradient", "subtract", "sum", "svd", "swapaxes",
    "swish", "switch", "take", "take_along_axis", "tan", "tanh", "tanh_shrink", "tensordot",
    "threshold", "tile", "top_k", "trace", "transpose", "trapezoid", "tri", "tril", "triu",
    "true_divide", "trunc", "unique", "unravel_index", "unstack", "vander", "var", "vdot",
    "vectorized_map", "vsplit", "vstack", "where", "while_loop", "zeros", "zeros_like",
    "cdist", "corrcoef", "correlate", "erfinv", "extract_sequences", "fold", "i0", "irfft",
    "istft", "rearrange", "rfft", "stft", "unfold", "vectorize", "view",
    "adaptive_average_pool", "adaptive_max_pool",
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
# Elementwise ``==`` / ``!=`` as on Keras tensors; tensors stay hashable by identity.
Tensor.__eq__ = lambda self, other: (NotImplemented if other is None or isinstance(
    other, str) else equal(self, other))
Tensor.__ne__ = lambda self, other: (NotImplemented if other is None or isinstance(
    other, str) else not_equal(self, other))
Tensor.__hash__ = object.__hash__
# Variables are state kept in lists (weights, optimizer slots): they compare by identity.
Variable.__eq__, Variable.__ne__ = object.__eq__, object.__ne__
Variable.__hash__ = object.__hash__
Tensor.reshape = lambda self, *shape_: reshape(
    self, shape_[0] if len(shape_) == 1 else shape_)
Tensor.T = property(lambda self: transpose(self))

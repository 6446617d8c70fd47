"""``lamina.ops.nn``: the neural-network ops (activations, softmax, dense, normalization,
convolution, pooling, one-hot, cross-entropies), as ``keras.ops.nn``."""

from lamina.backends.ops.conv import (average_pool, conv, conv_transpose,  # noqa: F401
                                      depthwise_conv, max_pool)
from lamina.backends.ops.losses import (softmax_cross_entropy,  # noqa: F401
                                        sparse_softmax_cross_entropy)
from lamina.backends.ops.nn import (batch_normalization_train, dense, dropout,  # noqa: F401
                                    elu, gelu, layer_normalization, leaky_relu, log_softmax,
                                    relu, relu6, selu, sigmoid, silu, softmax, softplus)
from lamina.backends.ops.shape import one_hot  # noqa: F401
from lamina.backends.ops.activations import (celu, glu, hard_shrink,  # noqa: F401
                                             hard_sigmoid, hard_silu, hard_swish, hard_tanh,
                                             log_sigmoid, soft_shrink, softsign, sparse_plus,
                                             sparse_sigmoid, sparsemax, squareplus,
                                             tanh_shrink, threshold)

__all__ = [
    "average_pool", "batch_normalization_train", "conv", "conv_transpose", "dense",
    "depthwise_conv", "dropout", "elu", "gelu", "layer_normalization", "leaky_relu",
    "log_softmax", "max_pool", "one_hot", "relu", "relu6", "selu", "sigmoid", "silu",
    "softmax", "softmax_cross_entropy", "softplus", "sparse_softmax_cross_entropy",
    "celu", "glu", "hard_shrink", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh",
    "log_sigmoid", "soft_shrink", "softsign", "sparse_plus", "sparse_sigmoid", "sparsemax",
    "squareplus", "tanh_shrink", "threshold",
]

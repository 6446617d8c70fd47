"""``lamina.ops.nn``: the neural-network ops (activations, softmax, dense, normalization,
convolution, pooling, attention, one-/multi-hot, cross-entropies), as ``keras.ops.nn``."""

from lamina.backends.ops import (average_pool, batch_normalization,  # noqa: F401
                                 batch_normalization_train, binary_crossentropy,
                                 categorical_crossentropy, celu, conv, conv_transpose, dense,
                                 depth_to_space, depthwise_conv, dot_product_attention,
                                 dropout, elu, gelu, glu, hard_shrink, hard_sigmoid,
                                 hard_silu, hard_swish, hard_tanh, layer_normalization,
                                 leaky_relu, log_sigmoid, log_softmax, max_pool, moments,
                                 multi_hot, normalize, one_hot, psnr, relu, relu6,
                                 rms_normalization, selu, separable_conv, sigmoid, silu,
                                 soft_shrink, softmax, softmax_cross_entropy, softplus,
                                 softsign, space_to_depth, sparse_categorical_crossentropy,
                                 sparse_plus, sparse_sigmoid, sparse_softmax_cross_entropy,
                                 sparsemax, squareplus, swish, tanh_shrink, threshold)
from lamina.backends.ops import ctc_decode, ctc_loss  # noqa: F401
from lamina.backends.ops import fold, unfold  # noqa: F401
from lamina.backends.ops import adaptive_average_pool, adaptive_max_pool  # noqa: F401

__all__ = [
    "average_pool", "batch_normalization", "batch_normalization_train",
    "binary_crossentropy", "categorical_crossentropy", "celu", "conv", "conv_transpose",
    "dense", "depth_to_space", "depthwise_conv", "dot_product_attention", "dropout", "elu",
    "gelu", "glu", "hard_shrink", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh",
    "layer_normalization", "leaky_relu", "log_sigmoid", "log_softmax", "max_pool",
    "moments", "multi_hot", "normalize", "one_hot", "psnr", "relu", "relu6",
    "rms_normalization", "selu", "separable_conv", "sigmoid", "silu", "soft_shrink",
    "softmax", "softmax_cross_entropy", "softplus", "softsign", "space_to_depth",
    "sparse_categorical_crossentropy", "sparse_plus", "sparse_sigmoid",
    "sparse_softmax_cross_entropy", "sparsemax", "squareplus", "swish", "tanh_shrink",
    "threshold",
    "ctc_decode", "ctc_loss",
    "fold", "unfold",
    "adaptive_average_pool", "adaptive_max_pool",
]

"""Convolution kernels (im2col + GEMM), written against an array module ``xp``."""

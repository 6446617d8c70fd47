"""Pooling kernels, written against an array module ``xp``."""

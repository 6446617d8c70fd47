"""The NumPy engine's Numba-compiled kernels (loaded on first use)."""

"""The NumPy engine (CPU): its engine class, threads, host tuning and compiled kernels."""

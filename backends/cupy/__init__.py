"""The CuPy engine (NVIDIA GPUs)."""

"""``lamina.ops.image``: image ops (patch extraction), as ``keras.ops.image``."""

from lamina.backends.ops.image import extract_patches  # noqa: F401

__all__ = ["extract_patches"]

"""``lamina.preprocessing.sequence``: ``pad_sequences``, as ``keras.preprocessing.sequence``."""

from lamina.highlevel.utils import pad_sequences  # noqa: F401

__all__ = ["pad_sequences"]

"""``lamina.dtype_policies``: dtype policies, as ``keras.dtype_policies``."""

from lamina.layers.options.dtype_policies import (DTypePolicy, FloatDTypePolicy,
                                                  deserialize, get, serialize)

__all__ = ["DTypePolicy", "FloatDTypePolicy", "deserialize", "get", "serialize"]

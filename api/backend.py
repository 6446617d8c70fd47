"""``lamina.backend``: the ``keras.backend`` names (the engine's name, the fuzz factor, the
float type, the image layout, dtypes, symbolic tensors, the session). The engine selection
itself is ``lamina.backends`` / ``lamina.config``."""

from lamina.backends.config import backend
from lamina.backends.state import (epsilon, floatx, image_data_format, set_epsilon,
                                   set_floatx, set_image_data_format)
from lamina.highlevel.utils.keras_tensors import (clear_session, is_float_dtype, is_int_dtype,
                                                  is_keras_tensor, standardize_dtype)
from lamina.layers.naming import get_uid

__all__ = ["backend", "clear_session", "epsilon", "floatx", "get_uid", "image_data_format",
           "is_float_dtype", "is_int_dtype", "is_keras_tensor", "set_epsilon", "set_floatx",
           "set_image_data_format", "standardize_dtype"]

"""``lamina.saving``: checkpoints in Keras' file formats (``.keras``, ``.h5``,
``.weights.h5``) and Keras 3's object serialization, as ``keras.saving``."""

from . import keras_serialization, model_file, object_registration, saving_api
from .model_file import *  # noqa: F401,F403  (the public names)
from .keras_serialization import deserialize_keras_object, serialize_keras_object
from .object_registration import *  # noqa: F401,F403
from .saving_api import (from_bytes, load_model, load_weights, save_model,  # noqa: F401,F811
                         save_weights)

__all__ = sorted(set(model_file.__all__) | set(object_registration.__all__) |
                 set(saving_api.__all__) |
                 {"deserialize_keras_object", "serialize_keras_object"})

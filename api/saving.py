"""``lamina.saving``: model files, weights files, custom objects and Keras 3's object
serialization, as ``keras.saving``."""

from lamina.highlevel.saving import (CheckpointError, CheckpointNotFoundError,  # noqa: F401
                                     ConfigError, CorruptFileError, CustomObjectScope,
                                     MissingConfigError, NotHDF5Error, TruncatedFileError,
                                     UnknownClassError, UnsupportedFormatError,
                                     WeightMismatchError, custom_object_scope,
                                     deserialize_keras_object, get_custom_objects,
                                     get_registered_name, get_registered_object, load_model,
                                     load_weights, register_keras_serializable, save_model,
                                     save_weights, serialize_keras_object)

__all__ = [
    "CheckpointError", "CheckpointNotFoundError", "ConfigError", "CorruptFileError",
    "CustomObjectScope", "MissingConfigError", "NotHDF5Error", "TruncatedFileError",
    "UnknownClassError", "UnsupportedFormatError", "WeightMismatchError",
    "custom_object_scope", "deserialize_keras_object", "get_custom_objects",
    "get_registered_name", "get_registered_object", "load_model", "load_weights",
    "register_keras_serializable", "save_model", "save_weights", "serialize_keras_object",
]

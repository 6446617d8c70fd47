"""``lamina.saving``: whole-model checkpoints and their errors, as ``keras.saving``."""

from lamina.highlevel.saving import (CheckpointError, CheckpointNotFoundError,  # noqa: F401
                                     ConfigError, CorruptFileError, MissingConfigError,
                                     NotHDF5Error, TruncatedFileError, UnknownClassError,
                                     UnsupportedFormatError, WeightMismatchError, load_model,
                                     save_model)

__all__ = [
    "CheckpointError", "CheckpointNotFoundError", "ConfigError", "CorruptFileError",
    "MissingConfigError", "NotHDF5Error", "TruncatedFileError", "UnknownClassError",
    "UnsupportedFormatError", "WeightMismatchError", "load_model", "save_model",
]

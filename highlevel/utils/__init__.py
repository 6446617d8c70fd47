"""``lamina.utils``: helpers as in ``keras.utils``."""

from ...backends.config import (disable_interactive_logging, enable_interactive_logging,
                               is_interactive_logging_enabled)
from ...backends.random import set_random_seed
from ..callbacks.progbar import Progbar
from .array_batches import ArrayBatches
from .config_dict import Config
from .dataset_split import split_dataset
from .directory_datasets import image_dataset_from_directory, text_dataset_from_directory
from .file_download import get_file
from .image_io import array_to_img, img_to_array, load_img, save_img
from .keras_tensors import (clear_session, get_source_inputs, is_keras_tensor,
                            pack_x_y_sample_weight, standardize_dtype,
                            unpack_x_y_sample_weight)
from .numerical import normalize, to_categorical
from .plot_history import plot_history
from .plot_model import model_to_dot, plot_model
from .py_dataset import PyDataset, Sequence
from .sequences import pad_sequences, timeseries_dataset_from_array
# keras.utils re-exports the saving helpers under the same names.
from ..saving.keras_serialization import deserialize_keras_object, serialize_keras_object
from ..saving.object_registration import (CustomObjectScope, custom_object_scope,
                                          get_custom_objects, get_registered_name,
                                          get_registered_object,
                                          register_keras_serializable)

__all__ = ["disable_interactive_logging", "enable_interactive_logging",
           "is_interactive_logging_enabled", "ArrayBatches", "CustomObjectScope", "Progbar", "PyDataset", "Sequence",
           "array_to_img", "clear_session", "custom_object_scope", "deserialize_keras_object", "get_custom_objects",
           "get_registered_name", "get_registered_object", "get_source_inputs",
           "is_keras_tensor", "pack_x_y_sample_weight", "register_keras_serializable", "serialize_keras_object",
           "standardize_dtype", "unpack_x_y_sample_weight",
           "image_dataset_from_directory", "img_to_array", "load_img", "model_to_dot",
           "normalize", "pad_sequences", "plot_history", "plot_model", "save_img",
           "set_random_seed", "split_dataset", "text_dataset_from_directory",
           "timeseries_dataset_from_array", "to_categorical",
           "Config", "get_file"]

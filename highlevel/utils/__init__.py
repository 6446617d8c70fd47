"""``lamina.utils``: helpers as in ``keras.utils``."""

from ...backends.random import set_random_seed
from ..callbacks.progbar import Progbar
from .array_batches import ArrayBatches
from .dataset_split import split_dataset
from .directory_datasets import image_dataset_from_directory, text_dataset_from_directory
from .image_io import array_to_img, img_to_array, load_img, save_img
from .numerical import normalize, to_categorical
from .plot_history import plot_history
from .plot_model import model_to_dot, plot_model
from .py_dataset import PyDataset, Sequence
from .sequences import pad_sequences, timeseries_dataset_from_array

__all__ = ["ArrayBatches", "Progbar", "PyDataset", "Sequence", "array_to_img",
           "image_dataset_from_directory", "img_to_array", "load_img", "model_to_dot",
           "normalize", "pad_sequences", "plot_history", "plot_model", "save_img",
           "set_random_seed", "split_dataset", "text_dataset_from_directory",
           "timeseries_dataset_from_array", "to_categorical"]

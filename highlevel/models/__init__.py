"""``lamina.models``: model classes and model-level helpers, as ``keras.models``."""

from .model import Model
from .cloning import clone_model
from ..saving.keras_serialization import model_from_json
from ..saving.saving_api import from_bytes, load_model, save_model
from .sequential import Sequential

__all__ = ["Model", "Sequential", "clone_model", "from_bytes", "load_model", "model_from_json",
           "save_model"]

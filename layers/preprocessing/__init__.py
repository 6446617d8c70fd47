"""Preprocessing layers (Keras' ``keras.layers`` preprocessing family): text, lookups,
categorical encodings, image resizing and augmentation, normalization."""

from .categorical import CategoryEncoding, Discretization, Hashing
from .lookup import IntegerLookup, StringLookup
from .normalization import Normalization
from .hashed_crossing import HashedCrossing
from .image_resizing import CenterCrop, Resizing
from .image_color import AutoContrast, RandomBrightness, RandomContrast, RandomGrayscale
from .image_geometry import (RandomCrop, RandomFlip, RandomRotation, RandomTranslation,
                             RandomZoom)
from .text import TextVectorization
from .pipeline import Pipeline

__all__ = ["CategoryEncoding", "Discretization", "Hashing", "IntegerLookup", "Normalization",
           "StringLookup", "TextVectorization"]
__all__ += ["AutoContrast", "CenterCrop", "HashedCrossing", "RandomBrightness", "RandomContrast", "RandomGrayscale",
            "RandomCrop", "RandomFlip", "RandomRotation", "RandomTranslation",
            "RandomZoom", "Resizing"]
__all__ += ["Pipeline"]

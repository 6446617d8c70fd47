"""Preprocessing layers (Keras' ``keras.layers`` preprocessing family): text, lookups,
categorical encodings, image resizing and augmentation, normalization."""

from .categorical import CategoryEncoding, Discretization, Hashing
from .lookup import IntegerLookup, StringLookup
from .normalization import Normalization
from .text import TextVectorization

__all__ = ["CategoryEncoding", "Discretization", "Hashing", "IntegerLookup", "Normalization",
           "StringLookup", "TextVectorization"]

"""``lamina.preprocessing``: the dataset builders and the ``image`` and ``sequence``
helpers, as ``keras.preprocessing`` (the same objects as in ``lamina.utils``)."""

from lamina.highlevel.utils import (image_dataset_from_directory,  # noqa: F401
                                    text_dataset_from_directory,
                                    timeseries_dataset_from_array)

from . import image, sequence  # noqa: E402,F401

__all__ = ["image", "image_dataset_from_directory", "sequence", "text_dataset_from_directory",
           "timeseries_dataset_from_array"]

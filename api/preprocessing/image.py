"""``lamina.preprocessing.image``: image arrays and files, as ``keras.preprocessing.image``."""

from lamina.highlevel.utils import array_to_img, img_to_array, load_img, save_img  # noqa: F401
from lamina.highlevel.utils.image_resizing import smart_resize  # noqa: F401

__all__ = ["array_to_img", "img_to_array", "load_img", "save_img", "smart_resize"]

"""``lamina.ops.image``: image ops, as ``keras.ops.image``."""

from lamina.backends.ops.image import (crop_images, extract_patches,  # noqa: F401
                                       extract_patches_3d, pad_images)
from lamina.backends.ops.image_color import hsv_to_rgb, rgb_to_grayscale, rgb_to_hsv  # noqa: F401
from lamina.backends.ops.image_filters import gaussian_blur, sobel_edges, ssim  # noqa: F401
from lamina.backends.ops.image_resize import resize, scale_and_translate  # noqa: F401
from lamina.backends.ops.image_sampling import (affine_transform,  # noqa: F401
                                                elastic_transform, map_coordinates,
                                                perspective_transform)

__all__ = ["affine_transform", "crop_images", "elastic_transform", "extract_patches",
           "extract_patches_3d", "gaussian_blur", "hsv_to_rgb", "map_coordinates",
           "pad_images", "perspective_transform", "resize", "rgb_to_grayscale", "rgb_to_hsv",
           "scale_and_translate", "sobel_edges", "ssim"]

"""Image size layers: ``Resizing`` (Keras' interpolations, crop or pad to the target's
aspect ratio) and ``CenterCrop`` (crops the center, or resizes an image smaller than the
target as Keras' ``smart_resize``)."""

from ...backends.ops.conversion import convert_to_numpy
from ...backends.ops.image_resize import RESIZE_INTERPOLATIONS, resize
from ..arguments import is_int, layer_error
from ..base import LAYERS
from .image_layer import ImageLayer, check_choice


class SizedImageLayer(ImageLayer):
    """An image layer with a target ``height`` and ``width`` (positive ints)."""

    def __init__(self, height, width, data_format=None, name=None, trainable=True,
                 dtype=None, input_shape=None):
        super().__init__(data_format=data_format, name=name, trainable=trainable, dtype=dtype,
                         input_shape=input_shape)
        self.height, self.width = check_size(self, height, width)

    def compute_output_shape(self, input_shape):
        return self._spatial_shape(input_shape, self.height, self.width)

    def get_config(self):
        return {**super().get_config(), "height": self.height, "width": self.width}


def check_size(layer, height, width):
    """``(height, width)`` as ints, each positive, else a ValueError naming the argument."""
    for argument, value in (("height", height), ("width", width)):
        if not is_int(value) or value < 1:
            raise layer_error(layer, f"needs {argument}, a positive int, got "
                                     f"{argument}={value!r}")
    return int(height), int(width)


def smart_resize(images, height, width):
    """The largest centered crop of the target's aspect ratio, resized (bilinear) to
    ``(height, width)`` (Keras' ``smart_resize``), as a NumPy batch."""
    return convert_to_numpy(resize(images, (height, width), crop_to_aspect_ratio=True))


@LAYERS.register()
class Resizing(SizedImageLayer):
    """Resizes images to ``(height, width)`` as Keras (its TensorFlow kernels).

    Args:
        height, width: the output size.
        interpolation: ``"bilinear"`` (default), ``"nearest"``, ``"bicubic"``, ``"area"``,
            ``"lanczos3"`` or ``"lanczos5"``.
        crop_to_aspect_ratio: first crop the largest centered window of the target's aspect
            ratio (no distortion).
        pad_to_aspect_ratio: first pad symmetrically with ``fill_value`` to the target's
            aspect ratio (no distortion, nothing cut).
        fill_mode: ``"constant"`` (the only mode Keras' resize has).
        fill_value: the padding value.
        antialias: widen the bilinear/bicubic/lanczos kernels when downsampling.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.

    Integer images come back rounded, in their dtype (as Keras); float ones in the
    layer's dtype.

    Example:
        >>> Resizing(2, 2)(np.arange(16.0).reshape(1, 4, 4, 1))[0, :, :, 0]
        [[2.5, 4.5], [10.5, 12.5]]
    """

    keeps_integer_dtype = True

    def __init__(self, height, width, interpolation="bilinear", crop_to_aspect_ratio=False,
                 pad_to_aspect_ratio=False, fill_mode="constant", fill_value=0.0,
                 antialias=False, data_format=None, name=None, trainable=True, dtype=None,
                 input_shape=None):
        super().__init__(height, width, data_format=data_format, name=name,
                         trainable=trainable, dtype=dtype, input_shape=input_shape)
        self.interpolation = check_choice(self, interpolation, RESIZE_INTERPOLATIONS,
                                          "interpolation")
        self.fill_mode = check_choice(self, fill_mode, ("constant",), "fill_mode")
        if crop_to_aspect_ratio and pad_to_aspect_ratio:
            raise layer_error(self, "takes only one of crop_to_aspect_ratio and "
                                    "pad_to_aspect_ratio, got both True")
        self.crop_to_aspect_ratio = bool(crop_to_aspect_ratio)
        self.pad_to_aspect_ratio = bool(pad_to_aspect_ratio)
        self.fill_value = float(fill_value)
        self.antialias = bool(antialias)

    def transform(self, images, training):
        return convert_to_numpy(resize(
            images, (self.height, self.width), self.interpolation, self.antialias,
            self.crop_to_aspect_ratio, self.pad_to_aspect_ratio, self.fill_mode,
            self.fill_value))

    def get_config(self):
        return {**super().get_config(), "interpolation": self.interpolation,
                "crop_to_aspect_ratio": self.crop_to_aspect_ratio,
                "pad_to_aspect_ratio": self.pad_to_aspect_ratio, "fill_mode": self.fill_mode,
                "fill_value": self.fill_value, "antialias": self.antialias}


@LAYERS.register()
class CenterCrop(SizedImageLayer):
    """Crops the central ``(height, width)`` window of each image; an image smaller than
    that on either side is instead cropped to the target's aspect ratio and resized
    (bilinear), as Keras.

    Args:
        height, width: the output size.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
    """

    def transform(self, images, training):
        height, width = images.shape[1:3]
        if height >= self.height and width >= self.width:
            top, left = (height - self.height) // 2, (width - self.width) // 2
            return images[:, top:top + self.height, left:left + self.width]
        return smart_resize(images, self.height, self.width)

"""smart_resize against Keras 3.15 (``keras.preprocessing.image.smart_resize``); the
expected numbers were printed by

    KERAS_BACKEND=torch python -c "import numpy as np
    from keras.preprocessing.image import smart_resize
    x = (np.arange(5*8*2).reshape(5, 8, 2) * 7 % 251).astype('uint8'); xf = x / 4 (float32)
    print(smart_resize(x, (3, 3)).tolist()) ..."
"""

import numpy as np
import pytest

import lamina
from lamina.preprocessing.image import smart_resize

X = (np.arange(5 * 8 * 2).reshape(5, 8, 2) * 7 % 251).astype("uint8")
XF = X.astype("float32") / 4


def test_integer_images_keep_their_dtype_rounded_as_keras():
    bilinear = smart_resize(X, (3, 3))
    assert bilinear.dtype == np.uint8
    assert bilinear.tolist() == [[[56, 63], [79, 86], [103, 110]],
                                 [[159, 166], [15, 22], [38, 45]],
                                 [[178, 185], [202, 209], [58, 65]]]
    assert smart_resize(X, (3, 3), interpolation="nearest").tolist() == [
        [[14, 21], [42, 49], [70, 77]], [[238, 245], [15, 22], [43, 50]],
        [[211, 218], [239, 246], [16, 23]]]


def test_float_image_crops_to_the_aspect_ratio_then_resizes():
    resized = smart_resize(XF, (2, 5))
    assert resized.dtype == np.float32 and resized.shape == (2, 5, 2)
    np.testing.assert_allclose(resized, [
        [[36.05, 37.8], [27.5312, 29.2812], [31.5625, 33.3125], [37.1625, 38.9125],
         [42.7625, 44.5125]],
        [[30.9875, 32.7375], [22.4687, 24.2187], [26.5, 28.25], [32.1, 33.85],
         [37.7, 39.45]]], atol=1e-3)
    assert smart_resize(XF, (10, 4)).shape == (10, 4, 2)


def test_channels_first_batch():
    batch = np.stack([XF, XF[::-1]]).transpose(0, 3, 1, 2)
    resized = smart_resize(batch, (4, 2), data_format="channels_first")
    assert resized.shape == (2, 2, 4, 2)
    np.testing.assert_allclose(resized[0], [
        [[14.0, 17.5], [25.4688, 28.9688], [21.25, 24.75], [56.25, 4.8438]],
        [[15.75, 19.25], [27.2188, 30.7188], [23.0, 26.5], [58.0, 6.5938]]], atol=1e-3)
    np.testing.assert_allclose(resized[1], resized[0][:, ::-1], atol=1e-3)


def test_a_tensor_comes_back_as_a_tensor():
    resized = smart_resize(lamina.ops.convert_to_tensor(XF), (2, 5))
    assert isinstance(resized, lamina.Tensor)
    np.testing.assert_allclose(resized.numpy(), smart_resize(XF, (2, 5)))


@pytest.mark.parametrize("arguments, match", [
    ((XF, (2, 2, 2)), "tuple of 2 integers"),
    ((XF[0], (2, 2)), "incorrect rank"),
    ((XF, (2, 2), "cubic"), "interpolation"),
    ((XF, (2, 2), "bilinear", "nhwc"), "data_format")])
def test_bad_arguments(arguments, match):
    with pytest.raises(ValueError, match=match):
        smart_resize(*arguments)

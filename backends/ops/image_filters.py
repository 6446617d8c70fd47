"""Filtering ops with ``keras.ops.image`` names: ``gaussian_blur``, ``sobel_edges`` and
``ssim``, as depthwise convolutions with fixed kernels (differentiable)."""

import numpy as np

from .conv import conv, depthwise_conv
from .conversion import cast, convert_to_tensor
from .image import to_batch
from .reductions import mean
from .shape import concatenate, getitem, pad, reshape, transpose


def _gaussian_1d(size, sigma, dtype):
    x = np.arange(size, dtype=dtype) - dtype.type((size - 1) / 2)
    kernel = np.exp(dtype.type(-0.5) * (x / dtype.type(sigma)) ** 2)
    return kernel / kernel.sum()


def _float(x):
    """``x`` cast to float32 unless it is float already, and its compute dtype."""
    dtype = np.dtype(x.dtype)
    if dtype.kind == "f":
        return x, dtype
    return cast(x, "float32"), np.dtype("float32")


def gaussian_blur(images, kernel_size=(3, 3), sigma=(1.0, 1.0), data_format=None):
    """``images`` blurred by a Gaussian as ``keras.ops.image.gaussian_blur``: Keras'
    kernel is ``outer(g(kernel_size[1], sigma[1]), g(kernel_size[0], sigma[0]))`` (rows,
    columns), applied per channel with zero padding (the output keeps the input's size
    and dtype).

    Example:
        >>> gaussian_blur(np.ones((1, 5, 5, 1)))[0, 2, 2, 0]
        1.0
    """
    x, restore = to_batch("gaussian_blur", images, data_format)
    source = np.dtype(x.dtype)
    x, dtype = _float(x)
    kernel_size = tuple(int(k) for k in np.broadcast_to(np.asarray(kernel_size), (2,)))
    sigma = tuple(float(s) for s in np.broadcast_to(np.asarray(sigma, dtype=float), (2,)))
    if min(kernel_size) < 1 or min(sigma) <= 0:
        raise ValueError(f"gaussian_blur needs positive kernel_size and sigma, got "
                         f"kernel_size={kernel_size}, sigma={sigma}")
    kernel = np.outer(_gaussian_1d(kernel_size[1], sigma[1], dtype),
                      _gaussian_1d(kernel_size[0], sigma[0], dtype))
    channels = x.shape[-1]
    kernel = np.tile(kernel[:, :, None, None], (1, 1, channels, 1)).astype(dtype)
    kh, kw = kernel.shape[:2]
    x = pad(x, [(0, 0), ((kh - 1) // 2, kh // 2), ((kw - 1) // 2, kw // 2), (0, 0)])
    return restore(cast(depthwise_conv(x, convert_to_tensor(kernel)), source.name))


def _edge_pad(x, axis):
    """``x`` with one edge row repeated on both sides of ``axis`` (scipy's reflect)."""
    first = [slice(None)] * 4
    last = [slice(None)] * 4
    first[axis], last[axis] = slice(0, 1), slice(-1, None)
    return concatenate([getitem(x, tuple(first)), x, getitem(x, tuple(last))], axis=axis)


def sobel_edges(images, data_format=None):
    """Sobel responses of each channel as ``keras.ops.image.sobel_edges``
    (``scipy.ndimage.sobel`` with its reflected border): a trailing axis of 2 holds the
    vertical (``d/dy``) then horizontal (``d/dx``) gradient, so a batch ``(N, H, W, C)``
    gives ``(N, H, W, C, 2)`` (``(N, C, H, W, 2)`` channels first). Differentiable.

    Example:
        >>> sobel_edges(np.ones((1, 4, 4, 1))).shape
        (1, 4, 4, 1, 2)
    """
    x, restore = to_batch("sobel_edges", images, data_format)
    x, dtype = _float(x)
    batch, height, width, channels = x.shape
    derivative, smooth = np.array([-1.0, 0.0, 1.0]), np.array([1.0, 2.0, 1.0])
    kernel = np.stack([np.outer(derivative, smooth), np.outer(smooth, derivative)], axis=-1)
    kernel = np.tile(kernel[:, :, None, :], (1, 1, channels, 1)).astype(dtype)
    x = _edge_pad(_edge_pad(x, 1), 2)
    edges = depthwise_conv(x, convert_to_tensor(kernel))
    return restore(reshape(edges, (batch, height, width, channels, 2)), channel_axis=-2)


def ssim(image1, image2, max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03,
         data_format=None):
    """The structural similarity of two images (or batches) as ``keras.ops.image.ssim``:
    local statistics under a ``filter_size`` Gaussian window of ``filter_sigma`` (valid
    positions only), averaged over positions and channels; one value per image.
    Differentiable in both images.

    Example:
        >>> x = np.random.rand(2, 16, 16, 3).astype("float32")
        >>> ssim(x, x)
        [1.0, 1.0]
    """
    unbatched = len(convert_to_tensor(image1).shape) == 3
    x, _ = to_batch("ssim", image1, data_format, argument="image1")
    y, _ = to_batch("ssim", image2, data_format, argument="image2")
    if tuple(x.shape) != tuple(y.shape):
        raise ValueError(f"ssim needs image1 and image2 of one shape, got "
                         f"{tuple(convert_to_tensor(image1).shape)} and "
                         f"{tuple(convert_to_tensor(image2).shape)}")
    source = np.dtype(x.dtype)
    x, dtype = _float(x)
    y, _ = _float(y)
    batch, height, width, channels = x.shape
    window = _gaussian_1d(filter_size, filter_sigma, dtype)
    kernel = convert_to_tensor(np.outer(window, window)[:, :, None, None].astype(dtype))

    def local_mean(z):
        return conv(z, kernel)

    x = reshape(transpose(x, (0, 3, 1, 2)), (-1, height, width, 1))
    y = reshape(transpose(y, (0, 3, 1, 2)), (-1, height, width, 1))
    c1, c2 = (k1 * max_val) ** 2, (k2 * max_val) ** 2
    mu1, mu2 = local_mean(x), local_mean(y)
    mu11, mu22, mu12 = mu1 * mu1, mu2 * mu2, mu1 * mu2
    sigma11, sigma22 = local_mean(x * x) - mu11, local_mean(y * y) - mu22
    sigma12 = local_mean(x * y) - mu12
    ssim_map = ((2.0 * mu12 + c1) * (2.0 * sigma12 + c2)) / (
        (mu11 + mu22 + c1) * (sigma11 + sigma22 + c2))
    per_image = mean(reshape(mean(ssim_map, axis=(1, 2, 3)), (batch, channels)), axis=-1)
    if unbatched:
        per_image = reshape(per_image, ())
    return cast(per_image, source.name)

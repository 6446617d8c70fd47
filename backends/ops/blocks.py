"""Sliding local blocks of channels-first images with ``keras.ops.nn`` names: ``unfold``
(im2col) and ``fold`` (col2im, summing overlaps), as ``torch.nn.functional.unfold`` /
``fold``. Each is the other's adjoint, so each is recorded with the other as its backward.

Layout: images ``(N, C, H, W)``; blocks ``(N, C * kH * kW, L)`` with the channel slowest,
then the kernel row and column, and ``L = outH * outW`` block positions in row-major
order, ``out = (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1``.
"""

from ..conv import as_tuple
from .core import data_of, record, xp


def _prepare(x, rank, layout, op, kernel_size, dilation, padding, stride):
    """The array behind ``x`` (checked to be of ``rank``) and the four geometry
    arguments as pairs of ints, checked."""
    a = data_of(x)
    if getattr(a, "ndim", 0) != rank:
        raise ValueError(f"{op} needs a {rank}-d input {layout}, got shape "
                         f"{tuple(getattr(a, 'shape', ()))}")
    pairs = [as_tuple(value, 2, f"{op}: {name}") for value, name in (
        (kernel_size, "kernel_size"), (dilation, "dilation"), (padding, "padding"),
        (stride, "stride"))]
    (kernel, dilation, padding, stride) = pairs
    if min(kernel + dilation + stride) < 1 or min(padding) < 0:
        raise ValueError(f"{op} needs positive kernel_size, dilation and stride and a "
                         f"non-negative padding, got kernel_size={kernel}, "
                         f"dilation={dilation}, padding={padding}, stride={stride}")
    return a, (kernel, dilation, padding, stride)


def _out_size(size, kernel, dilation, padding, stride):
    return tuple((n + 2 * p - d * (k - 1) - 1) // s + 1
                 for n, k, d, p, s in zip(size, kernel, dilation, padding, stride))


def _tap(i, j, out, dilation, stride):
    """The index, into the padded image, of kernel tap ``(i, j)`` at every position."""
    return (Ellipsis,
            slice(i * dilation[0], i * dilation[0] + (out[0] - 1) * stride[0] + 1, stride[0]),
            slice(j * dilation[1], j * dilation[1] + (out[1] - 1) * stride[1] + 1, stride[1]))


def _unfold_data(a, kernel, dilation, padding, stride):
    """im2col of the array ``a`` ``(N, C, H, W)`` -> ``(N, C * kH * kW, L)``."""
    (ph, pw), (n, c) = padding, a.shape[:2]
    if ph or pw:
        a = xp().pad(a, [(0, 0), (0, 0), (ph, ph), (pw, pw)])
    out = _out_size(a.shape[2:], kernel, dilation, (0, 0), stride)
    blocks = xp().empty((n, c, kernel[0], kernel[1]) + out, dtype=a.dtype)
    for i in range(kernel[0]):
        for j in range(kernel[1]):
            blocks[:, :, i, j] = a[_tap(i, j, out, dilation, stride)]
    return blocks.reshape(n, c * kernel[0] * kernel[1], out[0] * out[1])


def _fold_data(cols, size, kernel, dilation, padding, stride):
    """col2im of the array ``cols`` ``(N, C * kH * kW, L)`` into ``(N, C, *size)``,
    overlapping blocks summed (one vectorized add per kernel tap)."""
    (ph, pw), n = padding, cols.shape[0]
    padded = (size[0] + 2 * ph, size[1] + 2 * pw)
    out = _out_size(padded, kernel, dilation, (0, 0), stride)
    blocks = cols.reshape(n, -1, kernel[0], kernel[1], *out)
    image = xp().zeros((n, blocks.shape[1]) + padded, dtype=cols.dtype)
    for i in range(kernel[0]):
        for j in range(kernel[1]):
            image[_tap(i, j, out, dilation, stride)] += blocks[:, :, i, j]
    return xp().ascontiguousarray(image[:, :, ph:ph + size[0], pw:pw + size[1]])


def unfold(x, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding ``kernel_size`` blocks of the channels-first images ``x`` ``(N, C, H, W)``
    (zero ``padding`` on both sides, ``dilation`` between taps, ``stride`` between
    blocks), flattened: shape ``(N, C * kH * kW, L)``. Each argument is an int or a pair.

    Example:
        >>> unfold(np.ones((1, 2, 4, 4)), kernel_size=2, stride=2).shape   # (1, 8, 4)
    """
    a, (kernel, dilation, padding, stride) = _prepare(
        x, 4, "(N, C, H, W)", "unfold", kernel_size, dilation, padding, stride)
    out = _out_size(a.shape[2:], kernel, dilation, padding, stride)
    if min(out) < 1:
        raise ValueError(f"unfold: kernel_size={kernel} with dilation={dilation} does not "
                         f"fit the padded image of shape {tuple(a.shape)}")
    size = a.shape[2:]
    return record(_unfold_data(a, kernel, dilation, padding, stride), (x,),
                  lambda g, needs: (_fold_data(g, size, kernel, dilation, padding, stride),),
                  "unfold")


def fold(x, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """The inverse arrangement of :func:`unfold`: blocks ``x`` ``(N, C * kH * kW, L)``
    summed into channels-first images ``(N, C, *output_size)`` (overlaps add up; the
    ``padding`` is cropped). ``L`` must be the number of block positions of
    ``output_size``.

    Example:
        >>> fold(unfold(x, 2, stride=2), (4, 4), 2, stride=2)   # x (1, 2, 4, 4) again
    """
    a, (kernel, dilation, padding, stride) = _prepare(
        x, 3, "(N, C * kH * kW, L)", "fold", kernel_size, dilation, padding, stride)
    size = as_tuple(output_size, 2, "fold: output_size")
    out = _out_size(size, kernel, dilation, padding, stride)
    taps = kernel[0] * kernel[1]
    if a.shape[1] % taps or min(out) < 1 or a.shape[2] != out[0] * out[1]:
        raise ValueError(f"fold: input shape {tuple(a.shape)} does not match "
                         f"output_size={size}, kernel_size={kernel}, dilation={dilation}, "
                         f"padding={padding}, stride={stride} (expected (N, C * {taps}, "
                         f"{max(out[0], 0) * max(out[1], 0)}))")
    return record(_fold_data(a, size, kernel, dilation, padding, stride), (x,),
                  lambda g, needs: (_unfold_data(g, kernel, dilation, padding, stride),),
                  "fold")

"""Plain-NumPy loop references of the convolution layers (``from harness.conv_references
import ...``), shared by the tests of layers/convolution*.py: channels-last, float64,
explicit loops over output positions and kernel taps (slow, obviously right)."""

import numpy as np


def same_pads(n, k, s, d):
    """TF/Keras 'same' rule for one axis: (out, before)."""
    effective = (k - 1) * d + 1
    out = -(-n // s)
    total = max((out - 1) * s + effective - n, 0)
    return out, total // 2


def reference_conv(x, kernel, strides, padding, dilation, groups=1):
    """N-d cross-correlation with an explicit loop over output positions and taps."""
    rank = x.ndim - 2
    ksize = kernel.shape[:rank]
    geometry = []
    for n, k, s, d in zip(x.shape[1:-1], ksize, strides, dilation):
        effective = (k - 1) * d + 1
        if padding == "valid":
            geometry.append(((n - effective) // s + 1, 0))
        elif padding == "causal":
            geometry.append((-(-n // s), effective - 1))
        else:
            geometry.append(same_pads(n, k, s, d))
    cin_g, cout = kernel.shape[-2], kernel.shape[-1]
    cout_g = cout // groups
    out = np.zeros((x.shape[0],) + tuple(o for o, _ in geometry) + (cout,))
    for position in np.ndindex(*out.shape[1:-1]):
        for tap in np.ndindex(*ksize):
            index = tuple(p * s + t * d - before for p, t, s, d, (_, before)
                          in zip(position, tap, strides, dilation, geometry))
            if any(i < 0 or i >= n for i, n in zip(index, x.shape[1:-1])):
                continue
            pixel = x[(slice(None),) + index]
            for g in range(groups):
                out[(slice(None),) + position + (slice(g * cout_g, (g + 1) * cout_g),)] += (
                    pixel[:, g * cin_g:(g + 1) * cin_g] @ kernel[tap][:, g * cout_g:
                                                                      (g + 1) * cout_g])
    return out


def reference_conv_transpose(x, kernel, strides, padding, dilation):
    """N-d: scatter every input cell through the kernel (*kernel_size, out, in), then
    crop with the padding of the forward convolution of the output size."""
    rank = x.ndim - 2
    spatial = x.shape[1:-1]
    ksize = kernel.shape[:rank]
    full_sizes, crops = [], []
    for n, k, s, d in zip(spatial, ksize, strides, dilation):
        effective = (k - 1) * d + 1
        out = n * s + max(effective - s, 0) if padding == "valid" else n * s
        total = max((n - 1) * s + effective - out, 0)
        before = total // 2 if padding == "same" else 0
        full_sizes.append(max((n - 1) * s + effective, out))
        crops.append(slice(before, before + out))
    buffer = np.zeros((x.shape[0], *full_sizes, kernel.shape[-2]))
    for position in np.ndindex(*spatial):
        for tap in np.ndindex(*ksize):
            target = tuple(p * s + t * d for p, t, s, d in zip(position, tap, strides, dilation))
            buffer[(slice(None),) + target] += x[(slice(None),) + position] @ kernel[tap].T
    return buffer[(slice(None),) + tuple(crops)]


def reference_depthwise(x, kernel, strides, padding, dilation):
    """Channel ``c`` through filters ``kernel[..., c, :]``: output channel
    ``c * multiplier + m``."""
    return np.concatenate(
        [reference_conv(x[..., c:c + 1], kernel[..., c:c + 1, :], strides, padding, dilation)
         for c in range(x.shape[-1])], axis=-1)

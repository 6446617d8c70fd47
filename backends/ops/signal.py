"""Framed signals with ``keras.ops`` names: ``extract_sequences``, ``stft``, ``istft``,
``correlate``.

Framing (a strided copy) and overlap-add are each other's adjoint, so each is recorded
with the other as its backward; ``stft`` and ``istft`` are composed of them, ``rfft`` /
``irfft`` and elementwise ops, so they are differentiable in the signal and in a window
given as a tensor. Complex values are ``(real, imag)`` pairs, as in Keras.
"""

import math

from .conversion import convert_to_tensor
from .core import data_of, float_data, record, xp
from .fft import irfft, rfft
from .logic import where
from .math import matmul
from .shape import concatenate, expand_dims, getitem, pad

_WINDOWS = {"hann": (0.5, 0.5), "hamming": (0.54, 0.46)}


def _frames_data(a, size, stride, count):
    """``count`` frames of ``size`` samples every ``stride`` samples along the last axis
    of the array ``a`` (zero-padded at the end when it is too short), a contiguous copy
    of shape ``(..., count, size)``."""
    needed = (count - 1) * stride + size
    if a.shape[-1] < needed:
        a = xp().pad(a, [(0, 0)] * (a.ndim - 1) + [(0, needed - a.shape[-1])])
    steps = a.strides[:-1] + (stride * a.strides[-1], a.strides[-1])
    view = xp().lib.stride_tricks.as_strided(a, a.shape[:-1] + (count, size), steps)
    return xp().ascontiguousarray(view)


def _overlap_add_data(frames, stride, length):
    """The frames ``(..., count, size)`` of an array summed back at ``stride`` spacing
    into ``(..., length)`` (cropped or zero-padded at the end): one vectorized add per
    ``ceil(size / stride)`` frame blocks, no scatter."""
    *batch, count, size = frames.shape
    blocks = -(-size // stride)
    spread = xp().zeros((*batch, count, blocks * stride), dtype=frames.dtype)
    spread[..., :size] = frames
    spread = spread.reshape(*batch, count, blocks, stride)
    out = xp().zeros((*batch, count + blocks - 1, stride), dtype=frames.dtype)
    for block in range(blocks):
        out[..., block:block + count, :] += spread[..., block, :]
    out = out.reshape(*batch, -1)
    if out.shape[-1] >= length:
        return out[..., :length]
    return xp().pad(out, [(0, 0)] * len(batch) + [(0, length - out.shape[-1])])


def _frames(x, size, stride):
    """Differentiable framing of the tensor ``x`` (backward: overlap-add)."""
    a = data_of(x)
    count = 1 + (a.shape[-1] - size) // stride
    length = a.shape[-1]
    return record(_frames_data(a, size, stride, count), (x,),
                  lambda g, needs: (_overlap_add_data(g, stride, length),),
                  "extract_sequences")


def _overlap_add(frames, stride, length):
    """Differentiable overlap-add of the tensor ``frames`` (backward: framing)."""
    a = data_of(frames)
    count, size = a.shape[-2:]
    return record(_overlap_add_data(a, stride, length), (frames,),
                  lambda g, needs: (_frames_data(g, size, stride, count),), "overlap_add")


def _check_positive(value, name, op):
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{op} needs {name}, a positive int, got {name}={value!r}")


def extract_sequences(x, sequence_length, sequence_stride):
    """Frames of ``sequence_length`` samples every ``sequence_stride`` samples along the
    last axis of ``x``: shape ``(..., 1 + (N - sequence_length) // sequence_stride,
    sequence_length)``, dtype kept. Differentiable (the backward is overlap-add).

    Example:
        >>> extract_sequences(np.array([1, 2, 3, 4, 5, 6]), 3, 2)   # [[1, 2, 3], [3, 4, 5]]
    """
    _check_positive(sequence_length, "sequence_length", "extract_sequences")
    _check_positive(sequence_stride, "sequence_stride", "extract_sequences")
    a = data_of(x)
    if a.ndim < 1 or a.shape[-1] < sequence_length:
        raise ValueError(f"extract_sequences needs an input of rank >= 1 whose last "
                         f"dimension is at least sequence_length={sequence_length}, got "
                         f"shape {tuple(a.shape)}")
    return _frames(x, sequence_length, sequence_stride)


def _window(window, sequence_length, fft_length, dtype, op):
    """The analysis window zero-padded (centred) to ``fft_length``, a tensor or array."""
    left = (fft_length - sequence_length) // 2
    right = fft_length - sequence_length - left
    if isinstance(window, str):
        if window not in _WINDOWS:
            raise ValueError(f"{op}: a string window must be 'hann' or 'hamming', got "
                             f"window={window!r}")
        alpha, beta = _WINDOWS[window]
        n = xp().arange(sequence_length, dtype=dtype)
        # periodic (DFT-even) windows, as torch and scipy.signal.get_window give them
        win = (alpha - beta * xp().cos(2 * math.pi * n / sequence_length)
               if sequence_length > 1 else xp().ones(1, dtype=dtype)).astype(dtype)
    elif window is None:
        win = xp().ones(sequence_length, dtype=dtype)
    else:
        shape = tuple(data_of(window).shape)
        if shape != (sequence_length,):
            raise ValueError(f"{op} needs a window of shape (sequence_length,) = "
                             f"({sequence_length},), got shape {shape}")
        win = window
    return pad(win, [(left, right)]) if left or right else win


def _check_stft_arguments(sequence_length, sequence_stride, fft_length, op):
    _check_positive(sequence_length, "sequence_length", op)
    _check_positive(sequence_stride, "sequence_stride", op)
    _check_positive(fft_length, "fft_length", op)
    if fft_length < sequence_length:
        raise ValueError(f"{op} needs fft_length >= sequence_length, got "
                         f"sequence_length={sequence_length}, fft_length={fft_length}")


def _reflect_pad(x, width):
    """``x`` padded with ``width`` mirrored samples (edge excluded) at both ends of its
    last axis, as ``numpy.pad(mode="reflect")``; differentiable."""
    size = data_of(x).shape[-1]
    if width >= size:
        raise ValueError(f"stft with center=True needs more than fft_length // 2 = "
                         f"{width} samples, got {size}")
    left = getitem(x, (Ellipsis, slice(width, 0, -1)))
    right = getitem(x, (Ellipsis, slice(size - 2, size - 2 - width, -1)))
    return concatenate([left, x, right], axis=-1)


def stft(x, sequence_length, sequence_stride, fft_length, window="hann", center=True):
    """Short-time Fourier transform along the last axis of ``x`` (float32/float64), as
    ``keras.ops.stft``: frames of ``fft_length`` samples every ``sequence_stride``
    samples (``center``: the signal reflect-padded by ``fft_length // 2`` first, so frame
    ``t`` is centred at ``t * sequence_stride``), times ``window`` (``"hann"``,
    ``"hamming"`` (periodic), a tensor of ``sequence_length`` values or None, zero-padded
    to ``fft_length`` in the middle), then :func:`rfft`. Returns the ``(real, imag)`` pair
    of shape ``(..., num_sequences, fft_length // 2 + 1)``.

    Example:
        >>> real, imag = stft(np.arange(5.0), 3, 2, 3)   # shapes (3, 2)
    """
    _check_stft_arguments(sequence_length, sequence_stride, fft_length, "stft")
    a = data_of(x)
    dtype = getattr(a, "dtype", None)
    if dtype is None or dtype.kind != "f" or dtype.itemsize < 4:
        raise TypeError(f"stft needs a float32 or float64 input, got "
                        f"{dtype if dtype is not None else type(a).__name__}")
    if a.ndim < 1:
        raise ValueError(f"stft needs an input of rank >= 1, got shape {tuple(a.shape)}")
    win = _window(window, sequence_length, fft_length, dtype, "stft")
    if center:
        x = _reflect_pad(x, fft_length // 2)
    if data_of(x).shape[-1] < fft_length:
        raise ValueError(f"stft needs at least fft_length={fft_length} samples "
                         f"(after centring), got {data_of(x).shape[-1]}")
    return rfft(_frames(x, fft_length, sequence_stride) * win, fft_length)


def istft(x, sequence_length, sequence_stride, fft_length, length=None, window="hann",
          center=True):
    """Inverse of :func:`stft` (the same arguments) for ``x = (real, imag)`` of shape
    ``(..., num_sequences, fft_length // 2 + 1)``: :func:`irfft` of each frame, weighted
    by the window and overlap-added, divided by the overlap-added squared window (where it
    is not ~0: the least-squares inverse, as ``torch.istft`` and ``scipy.signal.istft``);
    with ``window=None`` the frames are overlap-added unweighted, as Keras does. The
    ``center`` padding is removed; ``length`` crops (or zero-pads) the result.

    Example:
        >>> istft(stft(signal, 8, 2, 8), 8, 2, 8)   # signal again (to float rounding)
    """
    _check_stft_arguments(sequence_length, sequence_stride, fft_length, "istft")
    if length is not None:
        _check_positive(length, "length", "istft")
    if isinstance(x, (tuple, list)) and len(x) == 2 and data_of(x[0]).ndim < 2:
        raise ValueError(f"istft needs inputs of rank >= 2 (..., num_sequences, bins), "
                         f"got shape {tuple(data_of(x[0]).shape)}")
    frames = irfft(x, fft_length)
    count = frames.shape[-2]
    total = fft_length + sequence_stride * (count - 1)
    if window is None:
        signal = _overlap_add(frames, sequence_stride, total)
    else:
        win = _window(window, sequence_length, fft_length, frames.dtype, "istft")
        signal = _overlap_add(frames * win, sequence_stride, total)
        squares = expand_dims(win * win, 0) + xp().zeros((count, 1), dtype=frames.dtype)
        envelope = _overlap_add(squares, sequence_stride, total)
        signal = signal / where(envelope > 1e-10, envelope, 1.0)
    start = fft_length // 2 if center else 0
    stop = start + length if length is not None else total - start
    if stop > total:
        signal = pad(signal, [(0, 0)] * (signal.ndim - 1) + [(0, stop - total)])
    return getitem(signal, (Ellipsis, slice(start, stop)))


def correlate(x1, x2, mode="valid"):
    """Cross-correlation of two 1-d tensors, as ``numpy.correlate``:
    ``c[k] = sum_n x1[n + k] * x2[n]``. ``mode`` "full" (all ``M + N - 1`` overlaps),
    "same" (the middle ``max(M, N)``) or "valid" (the ``max(M, N) - min(M, N) + 1``
    full overlaps). Integer inputs give float32. Differentiable (framing + matmul).

    Example:
        >>> correlate([1.0, 2.0, 3.0], [0.0, 1.0, 0.5])   # [3.5]
    """
    if mode not in ("valid", "same", "full"):
        raise ValueError(f"correlate needs mode 'valid', 'same' or 'full', got "
                         f"mode={mode!r}")
    a, b = float_data(x1), float_data(x2)
    if a.ndim != 1 or b.ndim != 1 or not a.shape[0] or not b.shape[0]:
        raise ValueError(f"correlate needs two non-empty 1-d tensors, got "
                         f"x1.shape={tuple(a.shape)}, x2.shape={tuple(b.shape)}")
    dtype = xp().result_type(a.dtype, b.dtype)
    x1, x2 = convert_to_tensor(x1, dtype), convert_to_tensor(x2, dtype)
    m, n = a.shape[0], b.shape[0]
    full = matmul(_frames(pad(x1, [(n - 1, n - 1)]), n, 1), x2)
    keep = {"full": m + n - 1, "same": max(m, n), "valid": max(m, n) - min(m, n) + 1}[mode]
    start = (m + n - 1 - keep + (m < n)) // 2   # NumPy's rounding (it swaps when m < n)
    return getitem(full, slice(start, start + keep))

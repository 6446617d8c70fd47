"""Fourier transforms with ``keras.ops`` names: ``fft``, ``fft2``, ``ifft2``, ``rfft``,
``irfft``. A complex tensor is a ``(real, imag)`` pair of float tensors, as in Keras; each
part of the result is recorded with its backward (the transform's adjoint)."""

from .core import data_of, float_data, record, xp


def _pair(x, name):
    if not isinstance(x, (tuple, list)) or len(x) != 2:
        raise ValueError(f"{name} needs x, a tuple (real, imag) of two tensors, got "
                         f"{type(x).__name__}")
    real, imag = x
    a, b = float_data(real), float_data(imag)
    if a.shape != b.shape:
        raise ValueError(f"{name} needs real and imag of one shape, got real shape "
                         f"{a.shape} and imag shape {b.shape}")
    if a.ndim < 1:
        raise ValueError(f"{name} needs inputs of rank >= 1, got shape {a.shape}")
    return real, imag, a, b


def _transform(x, name, forward):
    """``forward`` (a complex transform, symmetric as a matrix) of the pair ``x``, as a
    ``(real, imag)`` pair of Tensors. Its adjoint is ``conj(forward(conj(g)))``."""
    real, imag, a, b = _pair(x, name)
    dtype = a.dtype
    z = forward(a + 1j * b)

    def backward_of(part):
        def backward(g, needs):
            upstream = g if part == "real" else 1j * g
            h = xp().conj(forward(xp().conj(upstream)))
            return (h.real.astype(dtype) if needs[0] else None,
                    h.imag.astype(dtype) if needs[1] else None)
        return backward

    return (record(z.real.astype(dtype), (real, imag), backward_of("real"), name),
            record(z.imag.astype(dtype), (real, imag), backward_of("imag"), name))


def fft(x):
    """The discrete Fourier transform along the last axis of ``x = (real, imag)``; a
    ``(real, imag)`` pair."""
    return _transform(x, "fft", lambda z: xp().fft.fft(z, axis=-1))


def fft2(x):
    """The 2-d discrete Fourier transform over the last two axes of ``x = (real, imag)``;
    a ``(real, imag)`` pair."""
    _check_rank2(x, "fft2")
    return _transform(x, "fft2", lambda z: xp().fft.fft2(z, axes=(-2, -1)))


def ifft2(x):
    """The inverse of ``fft2`` over the last two axes of ``x = (real, imag)``; a
    ``(real, imag)`` pair."""
    _check_rank2(x, "ifft2")
    return _transform(x, "ifft2", lambda z: xp().fft.ifft2(z, axes=(-2, -1)))


def _check_rank2(x, name):
    if isinstance(x, (tuple, list)) and len(x) == 2 and len(getattr(
            data_of(x[0]), "shape", ())) < 2:
        raise ValueError(f"{name} needs inputs of rank >= 2, got shape "
                         f"{data_of(x[0]).shape}")


def _fit_last(a, size):
    """``a`` cropped or zero-padded along its last axis to ``size``."""
    if a.shape[-1] >= size:
        return a[..., :size]
    widths = [(0, 0)] * (a.ndim - 1) + [(0, size - a.shape[-1])]
    return xp().pad(a, widths)


def _check_length(fft_length, name):
    if fft_length is not None and (not isinstance(fft_length, int) or fft_length < 1):
        raise ValueError(f"{name} needs fft_length, a positive int or None, got "
                         f"fft_length={fft_length!r}")


def rfft(x, fft_length=None):
    """The DFT of a real signal along the last axis of ``x``: the ``fft_length // 2 + 1``
    non-negative frequency terms as a ``(real, imag)`` pair. ``x`` is cropped or
    zero-padded to ``fft_length`` (default: its last dimension) first.

    Example:
        >>> real, imag = rfft(np.array([0.0, 1.0, 2.0, 3.0, 4.0]))  # [10, -2.5, -2.5], ...
    """
    _check_length(fft_length, "rfft")
    a = float_data(x)
    if a.ndim < 1:
        raise ValueError(f"rfft needs an input of rank >= 1, got shape {a.shape}")
    size, n = a.shape[-1], fft_length or a.shape[-1]
    z = xp().fft.rfft(a, n=n, axis=-1)

    def backward_of(part):
        def backward(g, needs):
            # The adjoint is Re(n * ifft(g zero-padded to n bins)): n * irfft of g with
            # the bins irfft counts twice (all but the zero and Nyquist ones) halved.
            upstream = g.astype(z.dtype) if part == "real" else 1j * g
            upstream[..., 1:(n + 1) // 2] *= 0.5
            h = xp().fft.irfft(upstream, n=n, axis=-1) * n
            return (_fit_last(h, size).astype(a.dtype),)
        return backward

    return (record(z.real.astype(a.dtype), (x,), backward_of("real"), "rfft"),
            record(z.imag.astype(a.dtype), (x,), backward_of("imag"), "rfft"))


def irfft(x, fft_length=None):
    """The inverse of :func:`rfft` along the last axis of ``x = (real, imag)``: a real
    signal of ``fft_length`` samples (default ``2 * (bins - 1)``; give it when the
    length was odd). The bins are cropped or zero-padded to ``fft_length // 2 + 1``.

    Example:
        >>> irfft(rfft(signal, 5), 5)   # signal (5 samples) again
    """
    _check_length(fft_length, "irfft")
    real, imag, a, b = _pair(x, "irfft")
    bins = a.shape[-1]
    n = fft_length or 2 * (bins - 1)
    if n < 1:
        raise ValueError(f"irfft cannot infer fft_length from {bins} bin(s); give "
                         f"fft_length")
    out = xp().fft.irfft(a + 1j * b, n=n, axis=-1).astype(a.dtype)

    def backward(g, needs):
        # d out / d(bin k) is (c_k / n) * exp(2 pi i k j / n), c_k = 1 for the zero and
        # Nyquist bins and 2 otherwise: the adjoint is (c / n) * rfft(g).
        h = xp().fft.rfft(g, n=n, axis=-1) / n
        h[..., 1:(n + 1) // 2] *= 2
        h = _fit_last(h, bins)
        return (h.real.astype(a.dtype) if needs[0] else None,
                h.imag.astype(a.dtype) if needs[1] else None)

    return record(out, (real, imag), backward, "irfft")

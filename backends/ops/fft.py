"""Fourier transforms with ``keras.ops`` names: ``fft``, ``fft2``, ``ifft2``. A complex
tensor is a ``(real, imag)`` pair of float tensors, as in Keras; each part of the result
is recorded with its backward (the transform's adjoint)."""

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

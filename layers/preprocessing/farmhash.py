"""FarmHash ``Fingerprint64`` (farmhashna ``Hash64``) in pure Python: the string hash that
Keras' ``Hashing`` and the OOV buckets of ``StringLookup`` use (through TensorFlow's
``to_hash_bucket_fast``), so that hashed bins match Keras without TensorFlow."""

import numpy as np

_MASK = (1 << 64) - 1
_K0 = 0xC3A5C85C97CB3127
_K1 = 0xB492B66FBE98F273
_K2 = 0x9AE16A3B2F90404F


def _fetch64(data, i):
    return int.from_bytes(data[i:i + 8], "little")


def _fetch32(data, i):
    return int.from_bytes(data[i:i + 4], "little")


def _rotate(value, shift):
    return ((value >> shift) | (value << (64 - shift))) & _MASK


def _shift_mix(value):
    return value ^ (value >> 47)


def _hash_len16(u, v, mul):
    a = ((u ^ v) * mul) & _MASK
    a ^= a >> 47
    b = ((v ^ a) * mul) & _MASK
    b ^= b >> 47
    return (b * mul) & _MASK


def _hash_len0to16(data, length):
    if length >= 8:
        mul = _K2 + length * 2
        a = (_fetch64(data, 0) + _K2) & _MASK
        b = _fetch64(data, length - 8)
        c = (_rotate(b, 37) * mul + a) & _MASK
        d = ((_rotate(a, 25) + b) * mul) & _MASK
        return _hash_len16(c, d, mul)
    if length >= 4:
        mul = _K2 + length * 2
        a = _fetch32(data, 0)
        return _hash_len16((length + (a << 3)) & _MASK, _fetch32(data, length - 4), mul)
    if length > 0:
        a, b, c = data[0], data[length >> 1], data[length - 1]
        y = (a + (b << 8)) & 0xFFFFFFFF
        z = (length + (c << 2)) & 0xFFFFFFFF
        return (_shift_mix(((y * _K2) ^ (z * _K0)) & _MASK) * _K2) & _MASK
    return _K2


def _mix_ends(data, length, first_multiplier):
    """(mul, a, y, x): the mixes of the first 16 and last 16 bytes that the 17-32 and
    33-64 byte cases share."""
    mul = _K2 + length * 2
    a = (_fetch64(data, 0) * first_multiplier) & _MASK
    b = _fetch64(data, 8)
    c = (_fetch64(data, length - 8) * mul) & _MASK
    d = (_fetch64(data, length - 16) * _K2) & _MASK
    y = (_rotate((a + b) & _MASK, 43) + _rotate(c, 30) + d) & _MASK
    return mul, a, y, (a + _rotate((b + _K2) & _MASK, 18) + c) & _MASK


def _hash_len17to32(data, length):
    mul, _, y, x = _mix_ends(data, length, _K1)
    return _hash_len16(y, x, mul)


def _hash_len33to64(data, length):
    mul, a, y, x = _mix_ends(data, length, _K2)
    z = _hash_len16(y, x, mul)
    e = (_fetch64(data, 16) * mul) & _MASK
    f = _fetch64(data, 24)
    g = ((y + _fetch64(data, length - 32)) * mul) & _MASK
    h = ((z + _fetch64(data, length - 24)) * mul) & _MASK
    return _hash_len16((_rotate((e + f) & _MASK, 43) + _rotate(g, 30) + h) & _MASK,
                       (e + _rotate((f + a) & _MASK, 18) + g) & _MASK, mul)


def _weak_hash32(data, i, a, b):
    w, x, y, z = (_fetch64(data, i + k) for k in (0, 8, 16, 24))
    a = (a + w) & _MASK
    b = _rotate((b + a + z) & _MASK, 21)
    c = a
    a = (a + x + y) & _MASK
    b = (b + _rotate(a, 44)) & _MASK
    return (a + z) & _MASK, (b + c) & _MASK


def _hash_long(data, length):
    seed = 81
    x = seed
    y = (seed * _K1 + 113) & _MASK
    z = (_shift_mix((y * _K2 + 113) & _MASK) * _K2) & _MASK
    v0 = v1 = w0 = w1 = 0
    x = (x * _K2 + _fetch64(data, 0)) & _MASK
    end = ((length - 1) // 64) * 64
    last64 = end + ((length - 1) & 63) - 63
    s = 0
    while True:
        x = (_rotate((x + y + v0 + _fetch64(data, s + 8)) & _MASK, 37) * _K1) & _MASK
        y = (_rotate((y + v1 + _fetch64(data, s + 48)) & _MASK, 42) * _K1) & _MASK
        x ^= w1
        y = (y + v0 + _fetch64(data, s + 40)) & _MASK
        z = (_rotate((z + w0) & _MASK, 33) * _K1) & _MASK
        v0, v1 = _weak_hash32(data, s, (v1 * _K1) & _MASK, (x + w0) & _MASK)
        w0, w1 = _weak_hash32(data, s + 32, (z + w1) & _MASK,
                              (y + _fetch64(data, s + 16)) & _MASK)
        z, x = x, z
        s += 64
        if s == end:
            break
    mul = _K1 + ((z & 0xFF) << 1)
    s = last64
    w0 = (w0 + ((length - 1) & 63)) & _MASK
    v0 = (v0 + w0) & _MASK
    w0 = (w0 + v0) & _MASK
    x = (_rotate((x + y + v0 + _fetch64(data, s + 8)) & _MASK, 37) * mul) & _MASK
    y = (_rotate((y + v1 + _fetch64(data, s + 48)) & _MASK, 42) * mul) & _MASK
    x ^= (w1 * 9) & _MASK
    y = (y + v0 * 9 + _fetch64(data, s + 40)) & _MASK
    z = (_rotate((z + w0) & _MASK, 33) * mul) & _MASK
    v0, v1 = _weak_hash32(data, s, (v1 * mul) & _MASK, (x + w0) & _MASK)
    w0, w1 = _weak_hash32(data, s + 32, (z + w1) & _MASK, (y + _fetch64(data, s + 16)) & _MASK)
    z, x = x, z
    return _hash_len16((_hash_len16(v0, w0, mul) + _shift_mix(y) * _K0 + z) & _MASK,
                       (_hash_len16(v1, w1, mul) + x) & _MASK, mul)


def fingerprint64(value):
    """FarmHash ``Fingerprint64`` of ``value`` (``str``: its UTF-8 bytes, or ``bytes``), an
    unsigned 64-bit int, as TensorFlow's ``tf.fingerprint``/``to_hash_bucket_fast``."""
    data = value.encode("utf-8") if isinstance(value, str) else bytes(value)
    length = len(data)
    if length <= 16:
        return _hash_len0to16(data, length)
    if length <= 32:
        return _hash_len17to32(data, length)
    if length <= 64:
        return _hash_len33to64(data, length)
    return _hash_long(data, length)


def hash_buckets(values, num_buckets):
    """``fingerprint64(v) % num_buckets`` for every string of the array ``values``, as an
    int64 array of the same shape (TensorFlow's ``to_hash_bucket_fast``). Each distinct
    string is hashed once."""
    values = np.asarray(values, dtype=object)
    unique, inverse = np.unique(values.ravel(), return_inverse=True)
    buckets = np.fromiter((fingerprint64(v) % num_buckets for v in unique), dtype=np.int64,
                          count=len(unique))
    return buckets[inverse].reshape(values.shape)

"""SipHash-2-4 in pure Python: the keyed string hash of TensorFlow's
``to_hash_bucket_strong``, which Keras' ``Hashing`` uses when given a ``salt``, so that
salted bins match Keras without TensorFlow."""

import numpy as np

_MASK = (1 << 64) - 1


def _rotl(value, shift):
    return ((value << shift) | (value >> (64 - shift))) & _MASK


def _rounds(v0, v1, v2, v3, count):
    for _ in range(count):
        v0 = (v0 + v1) & _MASK
        v1 = _rotl(v1, 13) ^ v0
        v0 = _rotl(v0, 32)
        v2 = (v2 + v3) & _MASK
        v3 = _rotl(v3, 16) ^ v2
        v0 = (v0 + v3) & _MASK
        v3 = _rotl(v3, 21) ^ v0
        v2 = (v2 + v1) & _MASK
        v1 = _rotl(v1, 17) ^ v2
        v2 = _rotl(v2, 32)
    return v0, v1, v2, v3


def siphash64(key, value):
    """SipHash-2-4 of ``value`` (``str``: its UTF-8 bytes, or ``bytes``) under ``key``, a
    pair of unsigned 64-bit ints; an unsigned 64-bit int."""
    data = value.encode("utf-8") if isinstance(value, str) else bytes(value)
    k0, k1 = (int(k) & _MASK for k in key)
    v0, v1 = k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D
    v2, v3 = k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573
    full = len(data) - len(data) % 8
    blocks = [int.from_bytes(data[i:i + 8], "little") for i in range(0, full, 8)]
    blocks.append(((len(data) & 0xFF) << 56) | int.from_bytes(data[full:], "little"))
    for block in blocks:
        v3 ^= block
        v0, v1, v2, v3 = _rounds(v0, v1, v2, v3, 2)
        v0 ^= block
    v2 ^= 0xFF
    v0, v1, v2, v3 = _rounds(v0, v1, v2, v3, 4)
    return v0 ^ v1 ^ v2 ^ v3


def strong_hash_buckets(values, num_buckets, key):
    """``siphash64(key, v) % num_buckets`` for every string of the array ``values``, as an
    int64 array of the same shape (TensorFlow's ``to_hash_bucket_strong``). Each distinct
    string is hashed once."""
    values = np.asarray(values, dtype=object)
    unique, inverse = np.unique(values.ravel(), return_inverse=True)
    buckets = np.fromiter((siphash64(key, v) % num_buckets for v in unique), dtype=np.int64,
                          count=len(unique))
    return buckets[inverse].reshape(values.shape)

"""SipHash-2-4 (``layers/preprocessing/siphash.py``) against the reference test vectors of
Aumasson and Bernstein's paper (key 00..0f, messages 00..(n-1))."""

import numpy as np

from lamina.layers.preprocessing.siphash import siphash64, strong_hash_buckets

KEY = (0x0706050403020100, 0x0F0E0D0C0B0A0908)


def test_reference_vectors():
    assert siphash64(KEY, b"") == 0x726FDB47DD0E0E31
    assert siphash64(KEY, bytes(range(15))) == 0xA129CA6149BE45E5
    assert siphash64(KEY, bytes(range(8))) == 0x93F5F5799A932462
    assert siphash64(KEY, bytes(range(63))) == 0x958A324CEB064572


def test_buckets_hash_each_string():
    values = np.array([["héllo", "a"], ["a", "héllo"]], dtype=object)
    buckets = strong_hash_buckets(values, 10, (1, 2))
    assert buckets.dtype == np.int64 and buckets.shape == (2, 2)
    assert buckets[0, 0] == buckets[1, 1] == siphash64((1, 2), "héllo".encode()) % 10

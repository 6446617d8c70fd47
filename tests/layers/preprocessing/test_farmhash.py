"""FarmHash Fingerprint64 (``layers/preprocessing/farmhash.py``) against the C++ FarmHash
(values printed by ``pyfarmhash`` 0.5.1's ``farmhash.fingerprint64``), one string per code
path (0-16, 17-32, 33-64 and > 64 bytes, multi-byte UTF-8)."""

import numpy as np
import pytest

from lamina.layers.preprocessing.farmhash import fingerprint64, hash_buckets

EXPECTED = {
    "": 11160318154034397263, "A": 16915294056622060564, "hello": 13009744463427800296,
    "abcdefgh": 18368443631171807497, "abcdefghijklmnopq": 11394395984755135400,
    "The quick brown fox jumps over": 16670215548606328922,
    "x" * 40: 17003596230054984852, "y" * 65: 13246502507848426076,
    "z" * 200: 8728890208429024092, "héllo wörld": 9001971122424596627,
    "0123456789" * 13: 10720775057524481284,
}


@pytest.mark.parametrize("text", sorted(EXPECTED), ids=lambda t: f"len{len(t)}")
def test_fingerprint64_matches_farmhash(text):
    assert fingerprint64(text) == EXPECTED[text]
    assert fingerprint64(text.encode("utf-8")) == EXPECTED[text]


def test_hash_buckets_keeps_the_shape():
    values = np.array([["A", "B"], ["A", "E"]], dtype=object)
    np.testing.assert_array_equal(hash_buckets(values, 3), [[1, 0], [1, 2]])

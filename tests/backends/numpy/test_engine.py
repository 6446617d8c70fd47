"""The NumPy engine's own kernels: the ReLU sign a fused convolution keeps for its
backward, one bit a value."""

import numpy as np
import pytest

from lamina.backends.interface import Backend
from lamina.backends.numpy.engine import NumpyBackend


@pytest.mark.parametrize("shape", [(5, 3, 3, 7), (4, 16), (1, 1), (3, 0)])
def test_kept_sign_gives_back_every_rows_sign(shape):
    # per-sample sizes that are not a multiple of 8 pad each sample's last byte
    out = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    out[out.shape[0] // 2] = 0.0                       # zero is not positive
    engine = NumpyBackend()
    kept = engine.keep_sign(out)
    assert kept.dtype == np.uint8 and kept.nbytes <= out.shape[0] * (out[0].size // 8 + 1)
    for rows in (slice(0, shape[0]), slice(1, shape[0] - 1), slice(shape[0] - 1, shape[0])):
        signs = engine.sign_rows(kept, rows, out.shape)
        assert signs.dtype == bool
        np.testing.assert_array_equal(signs, out[rows] > 0)
        np.testing.assert_array_equal(
            signs, Backend.sign_rows(engine, Backend.keep_sign(engine, out), rows, out.shape))

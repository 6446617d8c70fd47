"""``fft``, ``fft2``, ``ifft2`` (``backends/ops/fft.py``) against Keras 3.15 outputs (inline,
from ``KERAS_BACKEND=torch /work/kvenv/bin/python`` on the same generated input), and their
gradients against central finite differences."""

import numpy as np
import pytest

import lamina
from lamina import ops

RNG = np.random.default_rng(1)
R = RNG.normal(size=(2, 3, 4)).astype("float32")
I = RNG.normal(size=(2, 3, 4)).astype("float32")

KERAS = {  # op -> (real[1, 2], imag[0, 1])
    "fft": ([2.0333, -0.6841, 0.5711, -1.8877], [1.4368, -1.7695, 3.2262, -2.0389]),
    "fft2": ([0.9717, -0.2463, -1.8269, 1.9712], [-7.5433, -4.3049, -0.7865, 0.2447]),
    "ifft2": ([-0.2732, 0.1968, -0.1551, -0.348], [-0.6052, 0.1873, -0.096, -0.2064]),
}


@pytest.mark.parametrize("name", sorted(KERAS))
def test_matches_keras(name):
    real, imag = getattr(ops, name)((R, I))
    real, imag = ops.convert_to_numpy(real), ops.convert_to_numpy(imag)
    assert real.dtype == imag.dtype == np.float32 and real.shape == R.shape
    np.testing.assert_allclose(real[1, 2], KERAS[name][0], atol=1e-4)
    np.testing.assert_allclose(imag[0, 1], KERAS[name][1], atol=1e-4)


@pytest.mark.parametrize("name", sorted(KERAS))
def test_gradient_matches_finite_differences(name):
    weights = RNG.normal(size=(2,) + R.shape)
    op = getattr(ops, name)

    def loss_of(r, i):
        real, imag = op((r, i))
        return ops.sum(real * weights[0]) + ops.sum(ops.square(imag) * weights[1])

    r, i = lamina.Variable(R), lamina.Variable(I)
    gr, gi = lamina.grad(loss_of(r, i), [r, i])
    r64, i64 = R.astype("float64"), I.astype("float64")
    for grad, index in ((gr, 0), (gi, 1)):
        numeric = np.zeros(R.shape)
        for pos in np.ndindex(R.shape):
            parts = [r64.copy(), i64.copy()]
            parts[index][pos] += 1e-3
            up = float(loss_of(*parts))
            parts[index][pos] -= 2e-3
            numeric[pos] = (up - float(loss_of(*parts))) / 2e-3
        np.testing.assert_allclose(ops.convert_to_numpy(grad), numeric, rtol=1e-3, atol=1e-3)


def test_bad_arguments():
    with pytest.raises(ValueError, match="tuple"):
        ops.fft(R)
    with pytest.raises(ValueError, match="one shape"):
        ops.fft2((R, I[:1]))
    with pytest.raises(ValueError, match="rank >= 2"):
        ops.ifft2((R[0, 0], I[0, 0]))

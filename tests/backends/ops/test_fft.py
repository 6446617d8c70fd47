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


# rfft / irfft: Keras 3.15 (KERAS_BACKEND=torch) numbers on X below, the first 6 values
# and the sum of each output:
#   r, i = keras.ops.rfft(X, 7); print(np.asarray(r).ravel()[:6], np.asarray(r).sum())
#   y = keras.ops.irfft((X[:, :6], X[:, 6:12]), 7); print(...)
X = np.random.default_rng(3).normal(size=(2, 20)).astype("float32")
KERAS_RFFT = {  # fft_length -> (real head, real sum, imag head, imag sum)
    None: ([-2.6476, -0.5755, 6.1093, -4.9305, 1.9804, 2.3972], 18.4799,
           [0.0, 1.7974, 4.2132, -0.9734, 5.2892, -1.3881], -2.4006),
    7: ([-3.3526, 0.0624, 2.2404, 6.5168, 3.9027, 2.5729], 7.5032,
        [0.0, -0.149, 0.7072, 0.8401, 0.0, 0.4398], 2.4542),
    26: ([-2.6476, -0.7111, -0.702, 6.9313, -5.0143, 0.9088], 24.6754,
         [0.0, 2.1454, 4.7072, -2.2035, 0.4694, 5.2678], 7.8328),
}
KERAS_IRFFT = {  # fft_length -> (shape, head, sum) of irfft((X[:, :6], X[:, 6:12]))
    None: ((2, 10), [-0.4491, -0.5205, 0.6002, 0.4862, -0.0828, 0.8434], 2.0652),
    7: ((2, 7), [-0.4814, -0.1633, 0.9449, -0.0301, 2.1502, -0.4544], 2.0652),
    4: ((2, 4), [-0.6631, 0.5217, 1.8926, 0.2897, 0.9153, 0.0046], 2.0652),
}


@pytest.mark.parametrize("fft_length", [None, 7, 26])
def test_rfft_matches_keras(fft_length):
    real, imag = ops.rfft(X, fft_length)
    real_head, real_sum, imag_head, imag_sum = KERAS_RFFT[fft_length]
    for part, head, total in ((real, real_head, real_sum), (imag, imag_head, imag_sum)):
        part = ops.convert_to_numpy(part)
        assert part.dtype == np.float32 and part.shape == (2, (fft_length or 20) // 2 + 1)
        np.testing.assert_allclose(part.ravel()[:6], head, atol=1e-4)
        np.testing.assert_allclose(part.sum(), total, atol=1e-3)


@pytest.mark.parametrize("fft_length", [None, 7, 4])
def test_irfft_matches_keras(fft_length):
    out = ops.convert_to_numpy(ops.irfft((X[:, :6], X[:, 6:12]), fft_length))
    shape, head, total = KERAS_IRFFT[fft_length]
    assert out.shape == shape and out.dtype == np.float32
    np.testing.assert_allclose(out.ravel()[:6], head, atol=1e-4)
    np.testing.assert_allclose(out.sum(), total, atol=1e-3)


def test_irfft_inverts_rfft():
    signal = X[:, :9]
    np.testing.assert_allclose(ops.irfft(ops.rfft(signal), 9).numpy(), signal, atol=1e-5)


@pytest.mark.parametrize("fft_length", [None, 5, 8, 13])
def test_rfft_gradients(check_op, fft_length):
    check_op(lambda x: ops.rfft(x, fft_length), [RNG.normal(size=(2, 8))],
             reference=lambda x: (np.fft.rfft(x, fft_length).real,
                                  np.fft.rfft(x, fft_length).imag))


@pytest.mark.parametrize("fft_length", [None, 5, 8, 11, 3])
def test_irfft_gradients(check_op, fft_length):
    check_op(lambda r, i: ops.irfft((r, i), fft_length),
             [RNG.normal(size=(2, 5)), RNG.normal(size=(2, 5))],
             reference=lambda r, i: np.fft.irfft(r + 1j * i, fft_length))


def test_rfft_irfft_bad_arguments():
    with pytest.raises(ValueError, match="rank >= 1"):
        ops.rfft(np.float32(1.0))
    with pytest.raises(ValueError, match="fft_length"):
        ops.rfft(X, 0)
    with pytest.raises(ValueError, match="tuple"):
        ops.irfft(X)
    with pytest.raises(ValueError, match="cannot infer fft_length"):
        ops.irfft((X[:, :1], X[:, :1]))

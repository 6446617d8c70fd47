"""``extract_sequences``, ``stft``, ``istft`` and ``correlate`` (``backends/ops/signal.py``)
against Keras 3.15 outputs (``KERAS_BACKEND=torch /work/kvenv/bin/python``, inline below),
their gradients against finite differences on every engine, and bad arguments.

Reference snippet (X as below; ``show`` prints shape, the first 6 values, the sum)::

    for args in [(8, 2, 8, "hann", True), (6, 3, 8, "hamming", True),
                 (8, 4, 8, None, False), (5, 2, 8, "hann", False)]:
        r, i = keras.ops.stft(X, *args); show(r); show(i)
        show(keras.ops.istft((r, i), *args[:3], window=args[3], center=args[4]))
"""

import numpy as np
import pytest

import lamina
from lamina import ops

X = np.random.default_rng(3).normal(size=(2, 20)).astype("float32")
RNG = np.random.default_rng(5)

KERAS_STFT = {  # args -> (shape, real head, real sum, imag head, imag sum)
    (8, 2, 8, "hann", True): ((2, 11, 5), [-2.0701, 0.9265, 1.6228, -5.0083, 6.9881, -1.8596],
                              -6.0708, [0.0] * 6, 1.4421),
    (6, 3, 8, "hamming", True): ((2, 7, 5),
                                 [-1.681, 0.7099, 1.7817, -4.7918, 6.2813, -1.2902], 4.5842,
                                 [0.0, 0.0321, 0.0454, 0.0321, 0.0, 0.0], -2.713),
    (8, 4, 8, None, False): ((2, 4, 5), [-3.5846, 1.0764, 3.1902, 3.9108, 3.5573, -0.5892],
                             -1.3355, [0.0, -0.5459, 1.9716, 4.3302, 0.0, 0.0], -12.1624),
    (5, 2, 8, "hann", False): ((2, 7, 5),
                               [-0.853, 0.8252, -0.5539, -0.0064, 0.3231, -2.2586], -5.3547,
                               [0.0, 0.166, -0.4391, 0.4549, 0.0, 0.0], -0.3418),
}
KERAS_ISTFT = {  # args -> (shape, head, sum) of istft(stft(X, *args), *args)
    (8, 2, 8, "hann", True): ((2, 20), [2.0409, -2.5557, 0.4181, -0.5678, -0.4526, -0.2156],
                              -1.6445),
    (6, 3, 8, "hamming", True): ((2, 18),
                                 [2.0409, -2.5557, 0.4181, -0.5678, -0.4526, -0.2156], 0.2258),
    (8, 4, 8, None, False): ((2, 20), [2.0409, -2.5557, 0.4181, -0.5678, -0.9053, -0.4312],
                             -0.8008),
}
KERAS_FRAMES = ((2, 6, 5), [2.0409, -2.5557, 0.4181, -0.5678, -0.4526, -0.5678], -1.8282)


def _check(value, shape, head, total):
    value = ops.convert_to_numpy(value)
    assert value.shape == shape and value.dtype == np.float32
    np.testing.assert_allclose(value.ravel()[:6], head, atol=1e-4)
    np.testing.assert_allclose(value.sum(), total, atol=1e-3)


def test_extract_sequences_matches_keras():
    _check(ops.extract_sequences(X, 5, 3), *KERAS_FRAMES)
    ints = ops.extract_sequences(np.array([1, 2, 3, 4, 5, 6]), 3, 2)
    assert ints.numpy().tolist() == [[1, 2, 3], [3, 4, 5]]


@pytest.mark.parametrize("args", sorted(KERAS_STFT, key=str), ids=str)
def test_stft_matches_keras(args):
    shape, real_head, real_sum, imag_head, imag_sum = KERAS_STFT[args]
    real, imag = ops.stft(X, *args)
    _check(real, shape, real_head, real_sum)
    _check(imag, shape, imag_head, imag_sum)


@pytest.mark.parametrize("args", sorted(KERAS_ISTFT, key=str), ids=str)
def test_istft_matches_keras(args):
    spectrum = ops.stft(X, *args)
    _check(ops.istft(spectrum, *args[:3], window=args[3], center=args[4]),
           *KERAS_ISTFT[args])


def test_istft_inverts_stft_where_the_window_covers():
    # Keras' torch backend divides by the steady-state window envelope here, so its first
    # samples differ; lamina divides by the true overlap-added envelope (torch.istft's and
    # scipy's rule) and gives the signal back wherever the window is non-zero.
    spectrum = ops.stft(X, 5, 2, 8, "hann", False)
    out = ops.istft(spectrum, 5, 2, 8, window="hann", center=False).numpy()
    np.testing.assert_allclose(out[:, 2:18], X[:, 2:18], atol=1e-5)   # window support
    batched = ops.stft(np.stack([X, 2 * X]), 8, 2, 8)
    again = ops.istft(batched, 8, 2, 8, length=20).numpy()
    np.testing.assert_allclose(again, np.stack([X, 2 * X]), atol=1e-5)


def test_istft_length_pads_and_crops():
    spectrum = ops.stft(X, 8, 2, 8)
    assert ops.istft(spectrum, 8, 2, 8, length=12).shape == (2, 12)
    padded = ops.istft(spectrum, 8, 2, 8, length=26).numpy()
    # samples 20..23 are the reconstructed reflect padding; past the frames: zeros
    assert padded.shape == (2, 26) and not padded[:, 24:].any()
    np.testing.assert_allclose(padded[:, :20], X, atol=1e-5)


def _frames_reference(x, size, stride):
    count = 1 + (x.shape[-1] - size) // stride
    return np.stack([x[..., k * stride:k * stride + size] for k in range(count)], axis=-2)


@pytest.mark.parametrize("size,stride", [(3, 1), (4, 3), (2, 5)])
def test_extract_sequences_gradients(check_op, size, stride):
    check_op(lambda x: ops.extract_sequences(x, size, stride), [RNG.normal(size=(2, 9))],
             reference=lambda x: _frames_reference(x, size, stride))


@pytest.mark.parametrize("args", [(6, 2, 6, "hann", True), (4, 3, 6, "hamming", False),
                                  (5, 5, 5, None, True)], ids=str)
def test_stft_gradients(check_op, args):
    check_op(lambda x: ops.stft(x, *args), [RNG.normal(size=(2, 12))])


def test_stft_gradient_reaches_a_window_tensor(check_op):
    check_op(lambda x, w: ops.stft(x, 4, 2, 6, window=w), [RNG.normal(size=(11,)),
                                                           RNG.uniform(0.5, 1.0, size=4)])


@pytest.mark.parametrize("args", [(6, 2, 6, "hann", True), (4, 2, 6, "hamming", False),
                                  (4, 4, 4, None, True)], ids=str)
def test_istft_gradients(check_op, args):
    frames = 1 + (12 - (0 if args[4] else args[2])) // args[1]
    bins = args[2] // 2 + 1
    check_op(lambda r, i: ops.istft((r, i), *args[:3], window=args[3], center=args[4]),
             [RNG.normal(size=(frames, bins)), RNG.normal(size=(frames, bins))])


def test_stft_bad_arguments():
    with pytest.raises(ValueError, match="sequence_stride"):
        ops.stft(X, 8, 0, 8)
    with pytest.raises(ValueError, match="fft_length >= sequence_length"):
        ops.stft(X, 8, 2, 4)
    with pytest.raises(ValueError, match="'hann' or 'hamming'"):
        ops.stft(X, 8, 2, 8, window="blackman")
    with pytest.raises(ValueError, match=r"shape \(sequence_length,\)"):
        ops.stft(X, 8, 2, 8, window=np.ones(7, "float32"))
    with pytest.raises(TypeError, match="float32 or float64"):
        ops.stft(np.arange(20), 8, 2, 8)
    with pytest.raises(ValueError, match="samples"):
        ops.stft(X[:, :3], 8, 2, 8)
    with pytest.raises(ValueError, match="rank >= 2"):
        ops.istft((X[0], X[0]), 8, 2, 8)
    with pytest.raises(ValueError, match="sequence_length"):
        ops.extract_sequences(X, 30, 2)


# correlate: np.correlate semantics; Keras (torch) printed the same numbers for
#   keras.ops.correlate([1, 2, 3, 4, 5], [0.5, -1, 2], mode) and the swapped pair, except
#   mode="same" with len(x1) < len(x2), where its torch backend returns len(x1) values
#   (Keras' documented output shape is max(M, N), as NumPy).
A = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
V = np.array([0.5, -1.0, 2.0])
KERAS_CORRELATE = {
    "valid": [4.5, 6.0, 7.5],
    "same": [3.0, 4.5, 6.0, 7.5, -3.0],
    "full": [2.0, 3.0, 4.5, 6.0, 7.5, -3.0, 2.5],
}


@pytest.mark.parametrize("mode", sorted(KERAS_CORRELATE))
def test_correlate_matches_keras_and_numpy(check_op, mode):
    np.testing.assert_allclose(ops.correlate(A, V, mode).numpy(), KERAS_CORRELATE[mode])
    check_op(lambda a, b: ops.correlate(a, b, mode), [RNG.normal(size=5),
                                                      RNG.normal(size=3)],
             reference=lambda a, b: np.correlate(a, b, mode))
    check_op(lambda a, b: ops.correlate(a, b, mode), [RNG.normal(size=2),
                                                      RNG.normal(size=6)],
             reference=lambda a, b: np.correlate(a, b, mode))


def test_correlate_integers_and_bad_arguments():
    assert ops.correlate(np.array([1, 2, 3]), np.array([1, 1])).dtype == np.float32
    with pytest.raises(ValueError, match="mode"):
        ops.correlate(A, V, "middle")
    with pytest.raises(ValueError, match="1-d"):
        ops.correlate(A.reshape(5, 1), V)


def test_stft_inside_a_trained_graph():
    weight = lamina.Variable(np.ones(8, "float32"))
    real, imag = ops.stft(X * 1.0, 8, 4, 8, window=weight)
    loss = ops.sum(real * real + imag * imag)
    (gradient,) = lamina.grad(loss, [weight])
    assert gradient.shape == (8,) and np.isfinite(ops.convert_to_numpy(gradient)).all()

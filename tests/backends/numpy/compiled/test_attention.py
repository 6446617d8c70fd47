"""The NumPy engine's compiled attention core (``backends/numpy/compiled/attention.py``):
the op with the kernels against the op as array calls (the kernels off), forward and
gradients, float32 and float64, with and without a mask (fully masked rows included),
seeded dropout, packed and separate inputs, uneven row blocks, inputs BLAS cannot read in
place, only some gradients needed; and what the engine answers where there is no
kernel. The finite-difference gradients are in ``tests/backends/ops/test_attention_core.py``."""

import numpy as np
import pytest
from harness.compiled import assert_matches_array_calls, forward_and_gradients

import lamina
from lamina.backends.numpy import engine as numpy_engine
from lamina.backends.ops.attention_core import attention_core, packed_attention_core

pytest.importorskip("numba")
kernels = numpy_engine.compiled("attention")
pytestmark = pytest.mark.skipif(kernels is None, reason="LAMINA_JIT=0 is set")
RNG = np.random.default_rng(12)
BATCH, TARGET, SOURCE, HEADS, DEPTH, VALUE_DEPTH = 5, 7, 9, 3, 4, 6
TOLERANCES = {"float32": dict(rtol=2e-5, atol=2e-6), "float64": dict(rtol=1e-12, atol=1e-13)}


@pytest.fixture(autouse=True)
def uneven_blocks(monkeypatch):
    """Every batch in two row blocks of different sizes (on threads where they run)."""
    monkeypatch.setattr(numpy_engine.NumpyBackend, "batch_blocks",
                        lambda self, batch, elements: [slice(0, 2), slice(2, batch)])


@pytest.fixture
def kernel_calls(monkeypatch):
    """How many times the op got the compiled kernels (a list the op's calls append to)."""
    calls = []
    original = numpy_engine.NumpyBackend.attention_core_kernels

    def counted(self, dtype):
        found = original(self, dtype)
        calls.extend([dtype] if found is not None else [])
        return found

    monkeypatch.setattr(numpy_engine.NumpyBackend, "attention_core_kernels", counted)
    return calls


def keep_mask(target=TARGET):
    keep = RNG.random((BATCH, target, SOURCE)) > 0.35
    keep[1, 2] = False                            # a fully masked row attends to nothing
    keep[4, 0] = False
    return keep


def core(packed, keep, dropout):
    """The op on one array: packed self-attention or the three views of it."""
    def op(x):
        generator = lamina.backends.get_backend().make_generator(11)
        kwargs = dict(keep=keep, dropout=dropout, generator=generator)
        if packed:
            return packed_attention_core(x, HEADS, DEPTH, VALUE_DEPTH, 0.37, **kwargs)
        q, k, v = (lamina.ops.reshape(x[:, :, start:stop], (BATCH, SOURCE, HEADS, size))
                   for start, stop, size in _bounds())
        return attention_core(q[:, :TARGET], k, v, 0.37, **kwargs)

    return op


def _bounds():
    edges = np.cumsum([0, HEADS * DEPTH, HEADS * DEPTH, HEADS * VALUE_DEPTH])
    return [(int(a), int(b), size) for a, b, size in
            zip(edges[:-1], edges[1:], (DEPTH, DEPTH, VALUE_DEPTH))]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("packed", [True, False], ids=["packed", "separate"])
@pytest.mark.parametrize("case", ["plain", "masked", "dropout", "masked dropout"])
def test_matches_the_array_calls(monkeypatch, kernel_calls, dtype, packed, case):
    keep = keep_mask(SOURCE if packed else TARGET) if "masked" in case else None
    dropout = 0.3 if "dropout" in case else 0.0
    x = RNG.standard_normal((BATCH, SOURCE, HEADS * (2 * DEPTH + VALUE_DEPTH))).astype(dtype)
    compiled = assert_matches_array_calls(monkeypatch, "attention", core(packed, keep, dropout),
                                          [x], **TOLERANCES[dtype])
    assert kernel_calls == [np.dtype(dtype)]
    if keep is not None and dropout == 0.0:
        # a fully masked query row gives a zero context (separate: row 2 is a target row)
        np.testing.assert_array_equal(compiled[0][1, 2], 0.0)


def separate_inputs(dtype="float32"):
    return [RNG.standard_normal(shape).astype(dtype) for shape in
            ((BATCH, TARGET, HEADS, DEPTH), (BATCH, SOURCE, HEADS, DEPTH),
             (BATCH, SOURCE, HEADS, VALUE_DEPTH))]


def test_inputs_blas_cannot_read_in_place_are_copied(monkeypatch, kernel_calls):
    """A query whose last axis is strided (a transposed array) still gives the array
    path's numbers."""
    q, k, v = separate_inputs()
    transposed = np.ascontiguousarray(q.transpose(0, 1, 3, 2)).transpose(0, 1, 3, 2)
    assert transposed.strides[3] != transposed.itemsize
    keep = keep_mask()

    def op(q, k, v):
        return attention_core(q, k, v, 0.5, keep)

    assert_matches_array_calls(monkeypatch, "attention", op, [transposed, k, v],
                               **TOLERANCES["float32"])
    assert kernel_calls


@pytest.mark.parametrize("needed", [0, 1, 2])
def test_only_some_gradients_needed(monkeypatch, kernel_calls, needed):
    """Only one of q, k, v requires a gradient: the kernel skips the others and gives the
    array path's gradient of that one."""
    inputs, keep = separate_inputs(), keep_mask()

    def gradient():
        tensors = [lamina.Tensor(a, requires_grad=i == needed) for i, a in enumerate(inputs)]
        out = attention_core(*tensors, 0.5, keep, 0.2,
                             lamina.backends.get_backend().make_generator(3))
        return np.asarray(lamina.grad(lamina.ops.sum(lamina.ops.square(out)),
                                      [tensors[needed]])[0])

    with lamina.backends.use_backend("numpy"):
        compiled = gradient()
        monkeypatch.setitem(numpy_engine._COMPILED, "attention", None)
        array_calls = gradient()
    assert kernel_calls
    np.testing.assert_allclose(compiled, array_calls, **TOLERANCES["float32"])


def test_a_row_block_leaves_the_other_rows_alone():
    forward, _ = kernels.attention_kernels("float32")
    q, k, v = separate_inputs()
    probabilities = np.zeros((BATCH, HEADS, TARGET, SOURCE), np.float32)
    context = np.zeros((BATCH, TARGET, HEADS, VALUE_DEPTH), np.float32)
    one = np.float32(1.0)
    forward(q, k, v, np.float32(0.5), np.zeros((0, 0, 0), bool),
            np.zeros((0, 0, 0, 0), np.float32), one, one, 1, 3, probabilities, probabilities,
            context)
    np.testing.assert_array_equal(context[[0, 3, 4]], 0.0)
    np.testing.assert_allclose(probabilities[1:3].sum(axis=-1), 1.0, rtol=1e-6)
    expected = forward_and_gradients(lambda q, k, v: attention_core(q, k, v, 0.5),
                                     [q[1:3], k[1:3], v[1:3]])[0]
    np.testing.assert_allclose(context[1:3], expected, rtol=1e-5, atol=1e-6)


def test_no_kernels_for_other_dtypes_or_without_the_module(monkeypatch):
    backend = numpy_engine.NumpyBackend()
    assert kernels.attention_kernels("float16") is None
    assert backend.attention_core_kernels("float16") is None
    assert backend.attention_core_kernels("float64") is not None
    monkeypatch.setitem(numpy_engine._COMPILED, "attention", None)
    assert backend.attention_core_kernels("float32") is None

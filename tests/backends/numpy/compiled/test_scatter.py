"""The NumPy engine's compiled scatter-add (``backends/numpy/compiled/scatter.py``): the
gradient of ``take`` and of ``Embedding`` against the array-call path, repeated and
negative indices."""

import numpy as np
import pytest
from harness.compiled import assert_matches_array_calls

from lamina import layers, ops
from lamina.backends.numpy import engine as numpy_engine

pytest.importorskip("numba")
kernels = numpy_engine.compiled("scatter")
pytestmark = pytest.mark.skipif(kernels is None, reason="LAMINA_JIT=0 is set")
RNG = np.random.default_rng(6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_take_gradient_matches_the_array_calls(monkeypatch, dtype):
    table = RNG.standard_normal((11, 3, 2)).astype(dtype)
    ids = np.array([[0, 4, 4], [10, -2, 4]])                 # repeated and negative ids
    compiled = assert_matches_array_calls(
        monkeypatch, "scatter", lambda t: ops.take(t, ids, axis=0), [table])
    assert compiled[1][4].any() and not compiled[1][1].any()


def test_embedding_gradient_matches_the_array_calls(monkeypatch):
    layer = layers.Embedding(50, 8)
    ids = RNG.integers(0, 50, size=(6, 20))
    layer(ids)
    assert_matches_array_calls(monkeypatch, "scatter", lambda table: ops.take(table, ids, 0),
                               [layer.embeddings.numpy()])


def test_kernel_adds_rows_in_order():
    out = np.zeros((4, 2), np.float32)
    updates = np.arange(10, dtype=np.float32).reshape(5, 2)
    kernels.scatter_add_rows(out, np.array([1, 3, 1, -1, 0]), updates)
    want = np.zeros((4, 2), np.float32)
    np.add.at(want, [1, 3, 1, 3, 0], updates)
    np.testing.assert_array_equal(out, want)

"""Control flow in ``lamina.ops`` (``backends/ops/control_flow.py``) with Keras'
signatures: results as Keras documents them, and gradients flowing through every
iteration, every engine."""

import numpy as np
import pytest

import lamina
from lamina import ops

RNG = np.random.default_rng(37)


def rand(*shape):
    return np.asarray(RNG.uniform(-1.0, 1.0, size=shape))


def test_cond_and_switch(check_op):
    check_op(lambda x: ops.cond(True, lambda: ops.sin(x), lambda: ops.cos(x)), [rand(3)],
             reference=np.sin)
    check_op(lambda x: ops.cond(ops.less(1.0, 0.0), lambda: ops.sin(x), lambda: ops.cos(x)),
             [rand(3)], reference=np.cos)
    branches = [lambda x: x + 1.0, lambda x: x * 2.0, lambda x: -x]
    assert float(ops.switch(1, branches, 3.0)) == 6.0
    assert float(ops.switch(7, branches, 3.0)) == -3.0          # clipped to the last
    assert float(ops.switch(-2, branches, 3.0)) == 4.0          # clipped to the first


def test_fori_loop(check_op):
    check_op(lambda x: ops.fori_loop(0, 3, lambda i, v: v * x + i, x), [rand(4)],
             reference=lambda x: ((x * x + 0) * x + 1) * x + 2)


def test_while_loop(check_op):
    # the Keras docs' example: i = 0; while i < 10: i += 1
    assert int(ops.while_loop(lambda i: i < 10, lambda i: i + 1, 0)) == 10
    out = ops.while_loop(lambda a, b: a < 10, lambda a, b: (a + 1, b * 2), (0, 1))
    assert isinstance(out, tuple) and [int(v) for v in out] == [10, 1024]
    assert ops.while_loop(lambda i: True, lambda i: i + 1, 0, maximum_iterations=4) == 4
    check_op(lambda x: ops.while_loop(lambda k, v: k < 3, lambda k, v: (k + 1, ops.sin(v)),
                                      (0, x))[1], [rand(3)],
             reference=lambda x: np.sin(np.sin(np.sin(x))))


def test_scan(check_op):
    def cumulative(carry, x):
        carry = carry + x
        return carry, carry

    (total, steps) = check_op(lambda xs: ops.scan(cumulative, ops.zeros(3, "float64"), xs),
                              [rand(5, 3)], check_float32=False,
                              reference=lambda xs: (xs.sum(0), np.cumsum(xs, 0)))
    assert steps.shape == (5, 3)
    check_op(lambda xs: ops.scan(cumulative, 0.0, xs, reverse=True)[1], [rand(4)],
             reference=lambda xs: np.cumsum(xs[::-1])[::-1])
    carry, ys = ops.scan(lambda c, _: (c * 2, None), 1.0, length=5)
    assert float(carry) == 32.0 and ys is None
    with pytest.raises(ValueError, match="length"):
        ops.scan(cumulative, 0.0)


def test_scan_nested(engine):
    xs = {"a": np.arange(3.0), "b": np.ones((3, 2))}
    carry, ys = ops.scan(lambda c, x: (c + x["a"], [x["b"] * c, c]), 0.0, xs)
    assert float(carry) == 3.0
    np.testing.assert_array_equal(ys[0].numpy(), [[0, 0], [0, 0], [1, 1]])
    np.testing.assert_array_equal(ys[1].numpy(), [0.0, 0.0, 1.0])


def test_associative_scan(check_op):
    check_op(lambda x: ops.associative_scan(ops.add, x), [rand(5, 2)],
             reference=lambda x: np.cumsum(x, axis=0))
    check_op(lambda x: ops.associative_scan(ops.multiply, x, reverse=True, axis=1),
             [rand(2, 4)], reference=lambda x: np.cumprod(x[:, ::-1], axis=1)[:, ::-1])


def test_map_and_vectorized_map(check_op):
    check_op(lambda x: ops.map(lambda row: ops.sum(row * row), x), [rand(4, 3)],
             reference=lambda x: (x * x).sum(1))
    check_op(lambda x: ops.vectorized_map(lambda row: ops.max(row), x), [rand(4, 3)],
             reference=lambda x: x.max(1))
    check_op(lambda a, b: ops.vectorized_map(lambda pair: ops.dot(pair[0], pair[1]), [a, b]),
             [rand(4, 3), rand(4, 3)], reference=lambda a, b: (a * b).sum(1))


def test_stop_gradient(engine):
    x = lamina.Tensor(np.array([1.0, 2.0]), requires_grad=True)
    y = ops.stop_gradient(x * 3.0)
    assert y.node is None and not y.requires_grad
    (g,) = lamina.grad(ops.sum(x * ops.stop_gradient(x)), [x])
    np.testing.assert_array_equal(g.numpy(), [1.0, 2.0])       # d/dx (x * c) = c


def test_custom_gradient(engine):
    # the Keras docs' example: log(1 + exp(x)) with a stable hand-written gradient
    @ops.custom_gradient
    def log1pexp(x):
        e = ops.exp(x)

        def grad(*args, upstream=None):
            if upstream is None:
                (upstream,) = args
            return ops.multiply(upstream, 1.0 - 1.0 / ops.add(1, e))

        return ops.log(1 + e), grad

    x = lamina.Tensor(np.array([0.0, 1.0, 100.0]), requires_grad=True)
    out = log1pexp(x)
    np.testing.assert_allclose(out.numpy()[:2], np.log1p(np.exp([0.0, 1.0])))
    (g,) = lamina.grad(ops.sum(out), [x])
    np.testing.assert_allclose(g.numpy(), [0.5, 1 / (1 + np.exp(-1.0)), 1.0])


def test_vectorize_matches_keras(check_op):
    # keras.ops.vectorize (KERAS_BACKEND=torch) printed these for the same inputs
    add = ops.vectorize(lambda a, b: a * 2 + b)
    assert add(np.array([1.0, 2.0, 3.0]), np.array([[10.0], [20.0]])).numpy().tolist() == [
        [12.0, 14.0, 16.0], [22.0, 24.0, 26.0]]
    product = ops.vectorize(lambda m, v: ops.matmul(m, v), signature="(m,n),(n)->(m)")
    out = product(np.arange(12.0).reshape(2, 2, 3), np.array([1.0, 0.0, -1.0]))
    assert out.numpy().tolist() == [[-2.0, -2.0], [-2.0, -2.0]]
    check_op(ops.vectorize(lambda a, b: ops.sin(a) * b), [rand(2, 3), rand(3)],
             reference=lambda a, b: np.sin(a) * b)
    check_op(ops.vectorize(lambda m: ops.sum(m * m), signature="(n)->()"), [rand(4, 3)],
             reference=lambda m: (m * m).sum(-1))


def test_vectorize_tuples_excluded_and_bad_arguments():
    split = ops.vectorize(lambda a: (a, -a))
    first, second = split(np.array([1.0, 2.0]))
    assert first.numpy().tolist() == [1.0, 2.0] and second.numpy().tolist() == [-1.0, -2.0]
    scaled = ops.vectorize(lambda a, factor: a * factor[0], excluded={1})
    assert scaled(np.array([1.0, 2.0]), [3.0]).numpy().tolist() == [3.0, 6.0]
    with pytest.raises(ValueError, match="callable"):
        ops.vectorize(3)
    with pytest.raises(ValueError, match="signature"):
        ops.vectorize(lambda a: a, signature="(n)")
    with pytest.raises(ValueError, match="2 inputs"):
        ops.vectorize(lambda a: a, signature="(n),(n)->()")(np.ones(3))

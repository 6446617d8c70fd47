"""Adaptive pooling ops (``backends/ops/adaptive_pooling.py``): Keras 3.15's numbers,
a plain-NumPy per-bin reference, finite-difference gradients (every engine) and errors."""

import itertools

import numpy as np
import pytest

import lamina
from lamina import ops
from lamina.backends.ops.adaptive_pooling import bin_edges

RNG = np.random.default_rng(11)


def x_of(shape):
    """The deterministic input the Keras numbers below were computed on."""
    return np.sin(np.arange(np.prod(shape)) * 0.37 + 0.1).reshape(shape).astype("float32")


# Produced with Keras 3.15.1 (torch backend) by, for each key:
#   keras.ops.adaptive_average_pool(x_of(shape), output_size, data_format=data_format)
#   keras.ops.adaptive_max_pool(x_of(shape), output_size, data_format=data_format)
KERAS = {  # (shape, output_size, data_format) -> (average, max), raveled
    ((1, 5, 2), 3, 'channels_last'): ([0.422238, 0.694251, 0.825611, 0.766992, 0.406867,
        0.075987],  [0.744643, 0.935616, 0.999958, 0.935616, 0.732231, 0.436399]),
    ((1, 3, 2), 5, 'channels_last'): ([0.099833, 0.452886, 0.422238, 0.694251, 0.744643,
        0.935616, 0.872300, 0.932288, 0.999958, 0.928960],  [0.099833, 0.452886, 0.744643,
        0.935616, 0.744643, 0.935616, 0.999958, 0.935616, 0.999958, 0.928960]),
    ((1, 5, 7, 2), (3, 4), 'channels_last'): ([-0.064717, 0.225850, 0.602271, 0.692772,
        0.416091, 0.182941, -0.364433, -0.594885, -0.582861, -0.578638, -0.306777,
        -0.132700, 0.394414, 0.492103, 0.545930, 0.427182, 0.196111, -0.095408, -0.533115,
        -0.662858, -0.505004, -0.293875, 0.241365, 0.498587],  [0.744643, 0.935616,
        0.999958, 0.999872, 0.938000, 0.999872, 0.430257, 0.074708, 0.067911, 0.106612,
        0.938000, 0.999872, 0.999739, 0.999872, 0.999739, 0.999561, 0.921198, 0.718156,
        0.417915, 0.061110, 0.471018, 0.758132, 0.942637, 0.999561]),
    ((1, 2, 5, 7), (3, 4), 'channels_first'): ([0.267655, 0.219727, 0.068503, -0.076131,
        0.168214, 0.058245, -0.102751, -0.197788, 0.019997, -0.120127, -0.244212, -0.262093,
        0.247278, 0.151712, -0.030363, -0.166644, 0.097025, -0.026900, -0.169733, -0.227684,
        -0.081361, -0.197712, -0.259886, -0.222704],  [0.452886, 0.935616, 0.999958,
        0.928960, 0.999872, 0.926416, 0.749174, 0.938000, 0.999872, 0.926416, 0.430257,
        0.113385, 0.753671, 0.999739, 0.999739, 0.722881, 0.921198, 0.718156, 0.942637,
        0.999561, 0.921198, 0.718156, 0.126916, 0.477018]),
    ((1, 3, 4, 5, 1), (2, 3, 2), 'channels_last'): ([0.452147, 0.211200, -0.299524,
        -0.480446, -0.287055, 0.053612, 0.034756, -0.302138, -0.476900, -0.284364, 0.228102,
        0.458873],  [0.999872, 0.999958, 0.928960, 0.436399, 0.940340, 0.999739, 0.999872,
        0.926416, 0.471018, 0.942637, 0.999561, 0.999739]),
}


def reference(x, output_size, data_format="channels_last", mode="average"):
    """Plain NumPy: one bin at a time, PyTorch's bin edges."""
    if data_format == "channels_first":
        x = np.moveaxis(x, 1, -1)
    rank = x.ndim - 2
    sizes = (output_size,) * rank if isinstance(output_size, int) else output_size
    edges = [list(zip(*bin_edges(length, size))) for length, size in zip(x.shape[1:-1], sizes)]
    out = np.zeros((x.shape[0], *sizes, x.shape[-1]))
    reduce = np.mean if mode == "average" else np.max
    for index in itertools.product(*(range(size) for size in sizes)):
        window = tuple(slice(*edges[axis][i]) for axis, i in enumerate(index))
        out[(slice(None), *index)] = reduce(x[(slice(None), *window)], axis=tuple(
            range(1, rank + 1)))
    return np.moveaxis(out, -1, 1) if data_format == "channels_first" else out


@pytest.mark.parametrize("key", list(KERAS), ids=str)
def test_keras_numbers(engine, key):
    shape, size, data_format = key
    x = x_of(shape)
    for op, want in zip((ops.adaptive_average_pool, ops.adaptive_max_pool), KERAS[key]):
        got = op(x, size, data_format=data_format)
        assert got.dtype == np.float32
        np.testing.assert_allclose(got.numpy().ravel(), want, atol=2e-6)
    assert ops.nn.adaptive_average_pool is ops.adaptive_average_pool
    assert ops.nn.adaptive_max_pool is ops.adaptive_max_pool


def test_bin_edges_overlap_and_cover():
    start, end = bin_edges(5, 3)
    assert start.tolist() == [0, 1, 3] and end.tolist() == [2, 4, 5]
    start, end = bin_edges(2, 3)        # more bins than cells: cells repeat
    assert start.tolist() == [0, 0, 1] and end.tolist() == [1, 2, 2]


CASES = [((2, 7, 3), 3, "channels_last"), ((2, 3, 4), 5, "channels_last"),
         ((1, 5, 6, 2), (2, 4), "channels_last"), ((1, 2, 4, 5), 3, "channels_first"),
         ((1, 3, 4, 5, 2), (2, 3, 2), "channels_last"),
         ((1, 2, 3, 3, 4), (2, 2, 3), "channels_first")]


@pytest.mark.parametrize("mode", ["average", "max"])
@pytest.mark.parametrize("shape,size,data_format", CASES, ids=str)
def test_forward_and_gradients(check_op, mode, shape, size, data_format):
    op = ops.adaptive_average_pool if mode == "average" else ops.adaptive_max_pool
    check_op(lambda x: op(x, size, data_format=data_format), [RNG.standard_normal(shape)],
             reference=lambda x: reference(x, size, data_format, mode))


def test_max_gradient_goes_to_one_cell_of_tied_bins(engine):
    x = lamina.Tensor(np.ones((1, 4, 1), dtype="float32"), requires_grad=True)
    (gradient,) = lamina.grad(ops.sum(ops.adaptive_max_pool(x, 2)), [x])
    np.testing.assert_array_equal(gradient.numpy().ravel(), [1, 0, 1, 0])


def test_integer_inputs():
    x = np.arange(12).reshape(1, 6, 2)
    assert ops.adaptive_max_pool(x, 2).dtype.kind == "i"
    average = ops.adaptive_average_pool(x, 2)
    assert average.dtype == np.float32
    np.testing.assert_allclose(average.numpy(), reference(x.astype(float), 2))


def test_bad_arguments_raise_value_errors():
    with pytest.raises(ValueError, match="ndim=3, 4 or 5.*got input shape \\(2, 3\\)"):
        ops.adaptive_average_pool(np.ones((2, 3)), 2)
    with pytest.raises(ValueError, match="output_size.*tuple of 2 positive ints, got \\(2,\\)"):
        ops.adaptive_max_pool(np.ones((1, 4, 4, 1)), (2,))
    with pytest.raises(ValueError, match="output_size"):
        ops.adaptive_max_pool(np.ones((1, 4, 1)), 0)
    with pytest.raises(ValueError, match="data_format"):
        ops.adaptive_max_pool(np.ones((1, 4, 1)), 2, data_format="NHWC")


@pytest.mark.parametrize("op", [ops.adaptive_average_pool, ops.adaptive_max_pool])
def test_data_format_none_reads_the_global_image_data_format(op):
    # Keras: data_format=None is keras.config.image_data_format()
    x = RNG.standard_normal((2, 3, 8, 6)).astype("float32")    # channels first (C=3)
    previous = lamina.config.image_data_format()
    lamina.config.set_image_data_format("channels_first")
    try:
        pooled = op(x, (4, 2))
    finally:
        lamina.config.set_image_data_format(previous)
    np.testing.assert_allclose(pooled.numpy(),
                               op(x, (4, 2), data_format="channels_first").numpy())
    assert pooled.shape == (2, 3, 4, 2)

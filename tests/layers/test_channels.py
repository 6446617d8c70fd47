"""The data_format helpers: moving the channel axis around a channels-last computation."""

import numpy as np

from lamina import ops
from lamina.layers.channels import (channel_axis, channels_last_shape, layout_shape,
                                    run_channels_last, shape_channels_last)


class _Layer:
    def __init__(self, data_format):
        self.data_format = data_format


FIRST, LAST = _Layer("channels_first"), _Layer("channels_last")


def test_shapes_move_the_channel_axis():
    assert channels_last_shape(FIRST, (None, 3, 5, 7)) == (None, 5, 7, 3)
    assert layout_shape(FIRST, (None, 5, 7, 3)) == (None, 3, 5, 7)
    assert channels_last_shape(LAST, (None, 3, 5, 7)) == (None, 3, 5, 7)
    assert channels_last_shape(FIRST, (None, 4)) == (None, 4)     # nothing to move
    assert shape_channels_last(FIRST, (2, 3, 5), lambda s: (s[0], s[1] * 2, s[2])) == \
        (2, 3, 10)
    assert channel_axis(FIRST) == 1 and channel_axis(LAST) == -1


def test_run_channels_last_transposes_in_and_out():
    x = np.arange(2 * 3 * 4 * 5, dtype="float32").reshape(2, 3, 4, 5)
    seen = []

    def compute(inputs):
        seen.append(tuple(inputs.shape))
        return ops.multiply(inputs, 2.0)

    out = run_channels_last(FIRST, x, compute)
    assert seen == [(2, 4, 5, 3)]
    np.testing.assert_array_equal(out.numpy(), 2 * x)
    reduced = run_channels_last(FIRST, x, lambda inputs: ops.mean(inputs, axis=(1, 2)))
    np.testing.assert_allclose(reduced.numpy(), x.mean(axis=(2, 3)))
    assert run_channels_last(LAST, x, lambda inputs: inputs) is x

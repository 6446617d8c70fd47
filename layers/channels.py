"""``data_format="channels_first"``: the spatial layers compute channels-last, so a
channels-first layer moves the channel axis last before its computation and back after
(weights keep Keras' shapes, which do not depend on the data format).

Example:
    >>> run_channels_last(layer, inputs, lambda x: ops.pool(x, 2))   # in a layer's call
"""

from ..backends import ops


def _first_to_last(rank):
    return (0, *range(2, rank), 1)


def _last_to_first(rank):
    return (0, rank - 1, *range(1, rank - 1))


def run_channels_last(layer, inputs, compute):
    """``compute`` (channels-last in, channels-last out) on ``inputs`` laid out as
    ``layer.data_format``; the result in the same layout."""
    if layer.data_format != "channels_first":
        return compute(inputs)
    outputs = compute(ops.transpose(inputs, _first_to_last(len(inputs.shape))))
    rank = len(outputs.shape)
    return outputs if rank <= 2 else ops.transpose(outputs, _last_to_first(rank))


def channels_last_shape(layer, shape):
    """``shape`` (laid out as ``layer.data_format``) in the channels-last layout."""
    shape = tuple(shape)
    if layer.data_format != "channels_first" or len(shape) <= 2:
        return shape
    return tuple(shape[i] for i in _first_to_last(len(shape)))


def layout_shape(layer, shape):
    """A channels-last ``shape`` in ``layer.data_format``'s layout."""
    shape = tuple(shape)
    if layer.data_format != "channels_first" or len(shape) <= 2:
        return shape
    return tuple(shape[i] for i in _last_to_first(len(shape)))


def shape_channels_last(layer, input_shape, compute):
    """``compute`` (a channels-last shape in, a channels-last shape out) on a shape laid
    out as ``layer.data_format``; the result in the same layout."""
    return layout_shape(layer, compute(channels_last_shape(layer, input_shape)))


def channel_axis(layer):
    """The channel axis of ``layer``'s inputs: 1 (channels-first) or -1."""
    return 1 if layer.data_format == "channels_first" else -1

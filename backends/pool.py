"""Pooling kernels, written against an array module ``xp``.

N-d channels-last max and average pooling with Keras semantics: padding ``"valid"`` or
``"same"`` (TensorFlow's rule, the odd padded cell after); padded cells never take part
(max ignores them, average divides by the number of real cells in each window).

How it is computed: one strided view of the input per window offset
(``prod(pool_size)`` views, each clipped to the real cells, so padding is never
materialized), combined elementwise into the output: a maximum or a sum. Backward writes
each offset's share into the same strided view of the input gradient: a plain assignment
when windows do not overlap (stride >= pool size, the common case), an accumulation
otherwise. With NumPy this measured faster than reshaping the input to
``(batch, o1, p1, o2, p2, ..., channels)`` and reducing over the ``p`` axes (a reduction
over non-adjacent axes), and faster than masked assignment (``copyto(where=...)``), which
is why neither is used.

Max pooling records, per output cell, the offset inside its window of the first maximum
(row-major order, as TensorFlow's ``MaxPoolGrad``) in a small-integer array; backward
routes each gradient to exactly that cell.
"""

import itertools

from .conv import as_tuple, conv_geometry, prod


def _offset_slices(offset, spatial, out, strides, dilation, pads):
    """For one kernel offset: (output-position slices, input slices), clipped to the
    cells that lie inside the unpadded input; ``None`` when no output position reads a
    real input cell. ``partial`` tells whether some output positions read padding."""
    out_slices, in_slices = [], []
    partial = False
    for k, n, o, s, d, (before, _) in zip(offset, spatial, out, strides, dilation, pads):
        shift = k * d - before                    # input index = position * s + shift
        lo = max(0, -(shift // s)) if shift < 0 else 0   # ceil(-shift / s)
        hi = min(o, (n - 1 - shift) // s + 1) if n - 1 - shift >= 0 else 0
        if hi <= lo:
            return None, None, True
        if lo > 0 or hi < o:
            partial = True
        start = lo * s + shift
        out_slices.append(slice(lo, hi))
        in_slices.append(slice(start, start + (hi - lo - 1) * s + 1, s))
    return tuple(out_slices), tuple(in_slices), partial


def _geometry(x_shape, pool_size, strides, padding):
    rank = len(x_shape) - 2
    pool_size = as_tuple(pool_size, rank, "pool_size")
    strides = pool_size if strides is None else as_tuple(strides, rank, "strides")
    padding = str(padding).lower()
    if padding not in ("valid", "same"):
        raise ValueError(f"pooling padding must be 'valid' or 'same', got {padding!r}")
    spatial = tuple(x_shape[1:-1])
    out, pads = conv_geometry(spatial, pool_size, strides, padding, (1,) * rank)
    return spatial, pool_size, strides, out, pads


def pool_output_shape(x_shape, pool_size, strides, padding):
    """The shape :func:`pool_forward` returns; raises the same ``ValueError`` it would for
    arguments that do not fit."""
    out = _geometry(x_shape, pool_size, strides, padding)[3]
    return (x_shape[0],) + tuple(out) + (x_shape[-1],)


def _index_dtype(taps):
    return "int8" if taps <= 127 else ("int16" if taps <= 32767 else "int32")


def _taps(spatial, out, pool_size, strides, pads):
    """(tap number, output slices, input slices, partial) for every window offset that
    reads at least one real input cell."""
    rank = len(spatial)
    result = []
    for t, offset in enumerate(itertools.product(*[range(p) for p in pool_size])):
        o_sl, i_sl, partial = _offset_slices(offset, spatial, out, strides, (1,) * rank, pads)
        if o_sl is not None:
            result.append((t, o_sl, i_sl, partial))
    return result


def pool_forward(xp, x, pool_size, strides, padding, mode, destination=None, compiled=None):
    """N-d channels-last max or average pooling.

    Shapes: x (batch, *spatial, channels); ``pool_size``/``strides`` int or tuples;
    ``padding`` ``"valid"``/``"same"``; ``mode`` ``"max"``/``"average"`` (also ``"avg"``).
    Returns (output (batch, *out_spatial, channels) in x's dtype, context for
    :func:`pool_backward`); the output is written into ``destination`` when given.
    ``compiled``: the module :mod:`lamina.backends.numpy.compiled.pooling` (NumPy arrays only),
    which then computes 2-D max pooling in one pass.
    """
    mode = {"avg": "average", "mean": "average"}.get(mode, mode)
    if mode not in ("max", "average"):
        raise ValueError(f"pooling mode must be 'max' or 'average', got {mode!r}")
    spatial, pool_size, strides, out, pads = _geometry(x.shape, pool_size, strides, padding)
    out_shape = (x.shape[0],) + out + (x.shape[-1],)
    taps = _taps(spatial, out, pool_size, strides, pads)
    lead = (slice(None),)
    context = (mode, tuple(x.shape), pool_size, strides, pads, out)
    if compiled is not None and mode == "max" and len(spatial) == 2:
        result = xp.empty(out_shape, dtype=x.dtype) if destination is None else destination
        index = xp.empty(out_shape, dtype=_index_dtype(prod(pool_size)))
        compiled.max_pool_2d_forward(x, pool_size, strides, tuple(p[0] for p in pads),
                                     result, index)
        return result, context + (index,)

    # Start from the first offset that covers every output cell (with "same" padding
    # some offsets only reach part of the output).
    if mode == "max":
        first = taps[0] if taps[0][0] == 0 and not taps[0][3] else None
    else:
        first = next((tap for tap in taps if not tap[3]), None)
    result = xp.empty(out_shape, dtype=x.dtype) if destination is None else destination
    if first is not None:
        result[...] = x[lead + first[2]]
    else:
        result[...] = 0 if mode == "average" else -xp.inf

    if mode == "average":
        for tap in taps:
            if tap is not first:
                target = result[lead + tap[1]]
                xp.add(target, x[lead + tap[2]], out=target)
        scale = _inverse_counts(xp, spatial, out, pool_size, strides, pads, x.dtype)
        if scale is None:
            result *= x.dtype.type(1.0 / prod(pool_size))
        else:
            result *= scale
        return result, context + (scale,)

    # Running maximum over the offsets (in row-major window order) and the offset of the
    # first maximum of each window (TensorFlow routes the gradient of a tie to one cell):
    # an offset t replaces the index only where it is strictly larger, and t exceeds every
    # earlier offset, so index = maximum(index, t * larger). No masked assignment (slow).
    index = xp.zeros(out_shape, dtype=_index_dtype(prod(pool_size)))
    for t, o_sl, i_sl, _ in taps:
        if first is not None and t == 0:
            continue
        window = lead + o_sl
        block = x[lead + i_sl]
        target = result[window]
        larger = xp.greater(block, target)
        xp.maximum(target, block, out=target)
        positions = index[window]
        if index.dtype.itemsize == 1 and t == 1:
            xp.maximum(positions, larger.view(index.dtype), out=positions)
        else:
            xp.maximum(positions, larger * index.dtype.type(t), out=positions)
    return result, context + (index,)


def _inverse_counts(xp, spatial, out, pool_size, strides, pads, dtype):
    """1 / (number of real cells per window), broadcastable to the output; None when
    every window is full."""
    per_axis = []
    full = True
    for n, o, p, s, (before, _) in zip(spatial, out, pool_size, strides, pads):
        starts = [i * s - before for i in range(o)]
        counts = [min(st + p, n) - max(st, 0) for st in starts]
        full = full and all(c == p for c in counts)
        per_axis.append(counts)
    if full:
        return None
    rank = len(spatial)
    scale = None
    for axis, counts in enumerate(per_axis):
        shape = [1] * (rank + 2)
        shape[axis + 1] = len(counts)
        values = xp.asarray([1.0 / c for c in counts], dtype=dtype).reshape(shape)
        scale = values if scale is None else scale * values
    return scale


def pool_backward(xp, grad_output, context, destination=None, compiled=None):
    """Gradient of :func:`pool_forward` with respect to its input (the input's shape),
    written into ``destination`` when given; ``compiled`` as for :func:`pool_forward`."""
    mode, x_shape, pool_size, strides, pads, out, extra = context
    spatial = tuple(x_shape[1:-1])
    dtype = grad_output.dtype
    taps = _taps(spatial, out, pool_size, strides, pads)
    lead = (slice(None),)
    disjoint = all(s >= p for s, p in zip(strides, pool_size))
    # Disjoint windows that tile the input leave no cell unwritten.
    tiled = disjoint and all(o * p == n for o, p, n in zip(out, pool_size, spatial)) \
        and not any(b or a for b, a in pads)
    if destination is None:
        dx = (xp.empty if tiled else xp.zeros)(x_shape, dtype=dtype)
    else:
        dx = destination
        if not tiled:
            dx[...] = 0

    if mode == "average":
        scale = extra
        if scale is None:
            share = grad_output * dtype.type(1.0 / prod(pool_size))
        else:
            share = grad_output * scale.astype(dtype, copy=False)
        for _, o_sl, i_sl, _ in taps:
            target = dx[lead + i_sl]
            if disjoint:
                target[...] = share[lead + o_sl]
            else:
                target += share[lead + o_sl]
        return dx

    index = extra
    if compiled is not None and len(spatial) == 2:
        compiled.max_pool_2d_backward(grad_output, index, pool_size, strides,
                                      tuple(p[0] for p in pads), tiled, dx)
        return dx
    for t, o_sl, i_sl, _ in taps:
        window = lead + o_sl
        hit = index[window] == index.dtype.type(t)
        target = dx[lead + i_sl]
        if disjoint:
            xp.multiply(hit, grad_output[window], out=target)
        else:
            target += hit * grad_output[window]
    return dx

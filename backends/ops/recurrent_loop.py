"""The recurrent ops' compiled-loop path: when the engine has compiled time loops
(:meth:`~lamina.backends.Backend.recurrent_loop_kernels`; the NumPy engine's call BLAS from
inside one Numba call), a sequence's whole time loop, forward or backward, is one engine
call per block of batch rows instead of a Python loop over the steps.

What stays around the loop is as in :mod:`lamina.ops.recurrent`: the input projection of
every step is one GEMM before it, and the gradients of the input, the kernel, the
recurrent kernel and the bias are each one GEMM (or sum) over all steps after it. The ops
of :mod:`lamina.ops.recurrent` choose this path (:func:`loop_kernels`) and hand over their
prepared :class:`~lamina.ops.recurrent` sequence plumbing (``seq``: processing-order
inputs, mask, initial states, dropout) and ``finish(packed, backward)``, which records the
op and returns its outputs.
"""


def loop_kernels(seq, cell, arrays):
    """The engine's compiled time loop of ``cell`` for this sequence, or None (then the
    op steps in Python): only when every weight in ``arrays`` has the inputs' dtype."""
    if any(a is not None and a.dtype != seq.dtype for a in arrays):
        return None
    return seq.backend.recurrent_loop_kernels(cell, seq.dtype)


def _loop_arguments(seq):
    """(keep, dropout) as the compiled loops take them: C-contiguous, or empty (0, 0)."""
    numpy_like = seq.xp
    keep = numpy_like.zeros((0, 0), dtype=bool) if seq.keep is None \
        else numpy_like.ascontiguousarray(seq.keep[..., 0])
    dropout = numpy_like.zeros((0, 0), dtype=seq.dtype) if seq.dropout is None \
        else numpy_like.ascontiguousarray(seq.dropout, dtype=seq.dtype)
    return keep, dropout


def _histories(seq, extra, initial_h):
    """The packed state array ``(T + 1 + extra, B, u)`` with the initial ``h`` in ``[0]``."""
    packed = seq.xp.empty((seq.steps + 1 + extra, seq.batch, seq.units), dtype=seq.dtype)
    packed[0] = seq.initial(initial_h)
    return packed


def _run(seq, size, work):
    """``work(start, stop)`` over the engine's batch row blocks (``size``: the elements of
    the largest result, which sizes the blocks)."""
    seq.backend.run_blocks(lambda rows: work(rows.start, rows.stop),
                           seq.backend.batch_blocks(seq.batch, size))


def _transposed(seq, recurrent_kernel):
    """The recurrent kernel transposed, C-contiguous, as the backward loops take it: their
    per-step ``d @ U.T`` then reads ``U.T`` row by row, which BLAS runs faster than a
    transposed operand at these small shapes (~30% at 32 x 512 x 128 in OpenBLAS)."""
    return seq.xp.ascontiguousarray(recurrent_kernel.T)


def _run_backward(seq, size, needs, shape, work):
    """``work(start, stop, bias_sum)`` over the row blocks as :func:`_run`, for a backward
    loop that sums the bias gradient as it goes: when the bias gradient is needed each
    block adds its rows' part into its own ``bias_sum`` (zeros of ``shape``) and this
    returns their sum; otherwise ``bias_sum`` is an empty stand-in and this returns None."""
    if len(needs) > 3 and needs[3]:
        return seq.backend.run_block_sums(
            lambda rows, total: work(rows.start, rows.stop, total),
            seq.backend.batch_blocks(seq.batch, size), shape, seq.dtype)
    stand_in = seq.xp.zeros(tuple(shape[:-1]) + (0,), dtype=seq.dtype)
    _run(seq, size, lambda start, stop: work(start, stop, stand_in))
    return None


def lstm(kernels, seq, internal, kernel, recurrent_kernel, bias, initial_h, initial_c,
         finish):
    """:func:`lamina.ops.lstm` on the compiled loop; ``internal`` maps Keras' gate order
    to the kernels' ``[i | f | o | c]`` and back; the rest as prepared by the op.

    Each step is ONE GEMM, ``[h_t | x_t] @ [U; W]`` (the input projection rides along in
    the recurrent GEMM); after the loop one GEMM gives the gradients of both kernels."""
    forward, backward = kernels
    numpy_like, steps, batch, u = seq.xp, seq.steps, seq.batch, seq.units
    stacked = internal(numpy_like.concatenate([recurrent_kernel, kernel]))
    gate_bias = numpy_like.zeros(4 * u, dtype=seq.dtype) if bias is None else internal(bias)
    gemm_input = numpy_like.empty((steps, batch, u + kernel.shape[0]), dtype=seq.dtype)
    gemm_input[:, :, u:] = seq.step_inputs
    keep, dropout = _loop_arguments(seq)
    packed = _histories(seq, 1, initial_h)
    hs = packed[:steps + 1]
    cs = numpy_like.empty((steps + 1, batch, u), dtype=seq.dtype)
    cs[0] = seq.initial(initial_c)
    gates = numpy_like.empty((steps, batch, 4 * u), dtype=seq.dtype)
    cell_act = numpy_like.empty((steps, batch, u), dtype=seq.dtype)
    _run(seq, gates.size, lambda start, stop: forward(
        gemm_input, gate_bias, stacked, keep, dropout, start, stop, gates, cell_act, cs, hs))
    packed[steps + 1] = cs[steps]

    def backward_pass(g_packed, needs):
        upstream = numpy_like.ascontiguousarray(g_packed, dtype=seq.dtype)
        d_gates = numpy_like.empty_like(gates)
        dh = numpy_like.zeros((batch, u), dtype=seq.dtype)
        dc = upstream[steps + 1].copy()
        transposed = _transposed(seq, stacked[:u])
        grad_b = _run_backward(seq, gates.size, needs, (4 * u,), lambda start, stop, total: (
            backward(upstream, gates, cell_act, cs, transposed, keep, dropout, start, stop,
                     dh, dc, d_gates, total)))
        dh += upstream[0]          # with no steps, the initial h is itself the final one
        flat = d_gates.reshape(-1, 4 * u)
        grad_x = seq.input_gradient(d_gates, stacked[u:]) if needs[0] else None
        grad_u = grad_w = None
        if needs[1] or needs[2]:
            stacked_grad = internal(gemm_input.reshape(-1, gemm_input.shape[-1]).T @ flat)
            grad_u, grad_w = stacked_grad[:u], stacked_grad[u:]
        return grad_x, grad_w, grad_u, None if grad_b is None else internal(grad_b), dh, dc

    return finish(packed, backward_pass)


def gru(kernels, seq, kernel, recurrent_kernel, bias, initial_h, finish):
    """:func:`lamina.ops.gru` (``reset_after``) on the compiled loop."""
    forward, backward = kernels
    numpy_like, steps, batch, u = seq.xp, seq.steps, seq.batch, seq.units
    recurrent = numpy_like.ascontiguousarray(recurrent_kernel)
    projection = seq.project(kernel, None if bias is None else bias[0])
    recurrent_bias = numpy_like.zeros(3 * u, dtype=seq.dtype) if bias is None \
        else numpy_like.ascontiguousarray(bias[1])
    keep, dropout = _loop_arguments(seq)
    packed = _histories(seq, 0, initial_h)
    gates = numpy_like.empty((steps, batch, 3 * u), dtype=seq.dtype)
    memory = numpy_like.empty((steps, batch, u), dtype=seq.dtype)
    _run(seq, gates.size, lambda start, stop: forward(
        projection, recurrent_bias, recurrent, keep, dropout, start, stop, gates, memory,
        packed))

    def backward_pass(g_packed, needs):
        upstream = numpy_like.ascontiguousarray(g_packed, dtype=seq.dtype)
        d_input, d_recurrent = numpy_like.empty_like(gates), numpy_like.empty_like(gates)
        dh = numpy_like.zeros((batch, u), dtype=seq.dtype)
        transposed = _transposed(seq, recurrent)
        grad_b = _run_backward(seq, gates.size, needs, (2, 3 * u), lambda start, stop, total: (
            backward(upstream, packed, gates, memory, transposed, keep, dropout, start, stop,
                     dh, d_input, d_recurrent, total)))
        dh += upstream[0]
        flat_recurrent = d_recurrent.reshape(-1, 3 * u)
        grad_x = seq.input_gradient(d_input, kernel) if needs[0] else None
        grad_w = seq.kernel_gradient(d_input) if needs[1] else None
        grad_u = seq.dropped_history(packed).T @ flat_recurrent if needs[2] else None
        return grad_x, grad_w, grad_u, grad_b, dh

    return finish(packed, backward_pass)


def simple_rnn(kernels, seq, kernel, recurrent_kernel, bias, initial_h, finish):
    """:func:`lamina.ops.simple_rnn` (tanh) on the compiled loop."""
    forward, backward = kernels
    numpy_like, batch, u = seq.xp, seq.batch, seq.units
    recurrent = numpy_like.ascontiguousarray(recurrent_kernel)
    projection = seq.project(kernel, bias)
    keep, dropout = _loop_arguments(seq)
    packed = _histories(seq, 0, initial_h)
    activated = numpy_like.empty((seq.steps, batch, u), dtype=seq.dtype)
    _run(seq, activated.size, lambda start, stop: forward(
        projection, recurrent, keep, dropout, start, stop, activated, packed))

    def backward_pass(g_packed, needs):
        upstream = numpy_like.ascontiguousarray(g_packed, dtype=seq.dtype)
        d_pre = numpy_like.empty_like(activated)
        dh = numpy_like.zeros((batch, u), dtype=seq.dtype)
        transposed = _transposed(seq, recurrent)
        grad_b = _run_backward(seq, activated.size, needs, (u,), lambda start, stop, total: (
            backward(upstream, activated, transposed, keep, dropout, start, stop, dh, d_pre,
                     total)))
        dh += upstream[0]
        flat = d_pre.reshape(-1, u)
        grad_x = seq.input_gradient(d_pre, kernel) if needs[0] else None
        grad_w = seq.kernel_gradient(d_pre) if needs[1] else None
        grad_u = seq.dropped_history(packed).T @ flat if needs[2] else None
        return grad_x, grad_w, grad_u, grad_b, dh

    return finish(packed, backward_pass)

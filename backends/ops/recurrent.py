"""Fused recurrent ops: a whole LSTM, GRU or simple-RNN sequence as ONE recorded op with a
hand-written backward (backpropagation through time).

Forward: the GRU and the simple RNN project every step's input in one GEMM before the loop;
the LSTM stacks ``[h_t | x_t]`` so each step is one GEMM with ``[U; W]``. With the default
activations (and, for the GRU, ``reset_after``) a step's gate math is one call of the
engine's compiled cell when it has one; otherwise it runs in place on preallocated storage
as array calls. Backward mirrors the loop, keeping only the per-step recurrent GEMM inside
it; the gradients of the input, the kernel, the recurrent kernel and the bias are each one
big GEMM (or sum) over all steps after the loop. With the compiled cells the batch rows of
the LSTM's and the GRU's loops run in row blocks (on threads, on the NumPy engine). The
LSTM computes in its own gate order ``[i | f | o | c]`` (see :class:`_LstmGates`); its
arguments and gradients stay in Keras' order.

Conventions (Keras'): inputs are ``(batch, time, features)``; gate column blocks are
``[i | f | c | o]`` for the LSTM and ``[z | r | h]`` for the GRU; a boolean ``mask`` of shape
``(batch, time)`` marks the valid steps: at a masked step the states are carried unchanged,
so the output there repeats the previous output. ``go_backwards`` processes the sequence
from the last step and returns the outputs in processing (reversed) order.

Each op returns ``(sequence, *final_states)``: ``sequence`` is ``(batch, time, units)``;
the final states are ``(batch, units)`` (the LSTM returns ``h`` and ``c``).

Example:
    >>> seq, h, c = ops.lstm(x, kernel, recurrent_kernel, bias)
"""

from .. import state
from ..trace import active as tracing
from . import recurrent_loop
from .activation_kernels import IN_PLACE_ACTIVATIONS, activate, derivative, scale_by_derivative
from .core import data_of, index_data, record, xp

RECURRENT_ACTIVATIONS = IN_PLACE_ACTIVATIONS


def check_activation(name, what="activation"):
    """Raise a ``ValueError`` unless ``name`` is an activation the fused ops support."""
    if name not in RECURRENT_ACTIVATIONS:
        raise ValueError(f"recurrent {what} must be one of {RECURRENT_ACTIVATIONS}, "
                         f"got {name!r}")


def _check_weights(op, inputs, kernel, recurrent_kernel, bias, gates, bias_shape=None):
    """Raise a ``ValueError`` naming ``op`` unless the weights fit the inputs: kernel
    (features, gates * units), recurrent kernel (units, gates * units) and the bias
    ``bias_shape`` (default (gates * units,)), where units = recurrent_kernel.shape[0]."""
    units = recurrent_kernel.shape[0]
    width = gates * units
    expected = [("recurrent_kernel", recurrent_kernel, (units, width))]
    if getattr(inputs, "ndim", 0) == 3:
        expected.append(("kernel", kernel, (inputs.shape[-1], width)))
    if bias is not None:
        expected.append(("bias", bias, bias_shape or (width,)))
    for name, array, shape in expected:
        if tuple(array.shape) != shape:
            raise ValueError(f"{op}: {name} must have shape {shape} for inputs of shape "
                             f"{tuple(getattr(inputs, 'shape', ()))} and {units} units, "
                             f"got {tuple(array.shape)}")


# ------------------------------------------------------------------ shared plumbing
class _Sequence:
    """The pieces every recurrent op shares: the input in processing (step-major) order, the
    mask, the initial state and the recurrent-dropout mask.

    The ops store everything per step step-major, ``(time, batch, ...)``, contiguous in
    processing order, so a step is one contiguous block and the gradients of the input and
    the kernel are plain GEMMs over all steps. ``step_inputs`` is the input in that order (a
    view); :meth:`project` copies it contiguous.
    """

    def __init__(self, inputs, units, mask, go_backwards, recurrent_mask):
        self.backend = state.backend()
        self.xp = self.backend.xp
        a = data_of(inputs)
        if a.ndim != 3:
            raise ValueError(f"recurrent ops need inputs of shape (batch, time, features), "
                             f"got shape {tuple(a.shape)}")
        self.batch, self.steps = a.shape[0], a.shape[1]
        self.units = units
        self.dtype = a.dtype
        self.go_backwards = go_backwards
        self.step_inputs = self.step_major(a)                              # (T, B, F) view
        self.contiguous_inputs = None
        self.keep = self.keep_float = None
        if mask is not None:
            keep = index_data(mask).astype(bool)
            if tuple(keep.shape) != (self.batch, self.steps):
                raise ValueError(f"recurrent mask must have shape (batch, time) = "
                                 f"{(self.batch, self.steps)}, got {tuple(keep.shape)}")
            # a traced step takes the mask whatever its values (no host read); an
            # all-True mask gives the numbers of no mask
            if tracing() is not None or not bool(keep.all()):
                self.keep = self.step_major(keep)[..., None]               # (T, B, 1)
                self.keep_float = self.keep.astype(self.dtype)
        self.dropout = None if recurrent_mask is None else data_of(recurrent_mask)
        if self.dropout is not None and tuple(self.dropout.shape) != (self.batch, units):
            raise ValueError(f"recurrent_dropout_mask must have shape (batch, units) = "
                             f"{(self.batch, units)}, got {tuple(self.dropout.shape)}")

    def project(self, kernel, bias):
        """The input projection of every step, ``x W + b`` (T, B, G): ONE GEMM over the
        inputs copied step-major and contiguous (kept for :meth:`kernel_gradient`)."""
        self.contiguous_inputs = self.xp.ascontiguousarray(self.step_inputs)
        return self.backend.linear(self.contiguous_inputs, kernel, bias)

    def step_major(self, array):
        """(batch, time, ...) -> (time, batch, ...) in processing order (a view)."""
        moved = array.swapaxes(0, 1)
        return moved[::-1] if self.go_backwards else moved

    def initial(self, value):
        if value is None:
            return self.xp.zeros((self.batch, self.units), dtype=self.dtype)
        data = data_of(value)
        if tuple(data.shape) != (self.batch, self.units):
            raise ValueError(f"recurrent initial state must have shape (batch, units) = "
                             f"{(self.batch, self.units)}, got {tuple(data.shape)}")
        return data

    def dropped(self, h, rows=slice(None)):
        """``h`` (the state of the batch rows ``rows``) as the recurrent GEMM sees it."""
        return h if self.dropout is None else h * self.dropout[rows]

    def feed(self, h, out, rows):
        """Write ``h`` (rows ``rows``) as the recurrent GEMM sees it into ``out``."""
        if self.dropout is None:
            out[...] = h
        else:
            self.xp.multiply(h, self.dropout[rows], out=out)

    def keep_old(self, t, new, old, rows=slice(None)):
        """Where step ``t`` is masked, write ``old`` over ``new`` (the state is carried)."""
        if self.keep is not None:
            self.xp.copyto(new, old, where=~self.keep[t, rows])

    def split_upstream(self, t, grad, rows=slice(None)):
        """(gradient reaching the cell's new state, gradient carried past a masked step)."""
        if self.keep is None:
            return grad, None
        through = grad * self.keep_float[t, rows]
        return through, grad - through

    def input_gradient(self, d_projection, kernel):
        """Gradient of the inputs (B, T, F) from the step-major gradient of the projection
        ``x kernel`` (T, B, G): one GEMM."""
        flat = d_projection.reshape(-1, d_projection.shape[-1])
        grad_steps = (flat @ kernel.T).reshape(self.steps, self.batch, kernel.shape[0])
        if self.go_backwards:
            grad_steps = grad_steps[::-1]
        return self.xp.ascontiguousarray(grad_steps.swapaxes(0, 1))

    def kernel_gradient(self, d_projection):
        """Gradient of the kernel of :meth:`project` (F, G): one GEMM."""
        flat = d_projection.reshape(-1, d_projection.shape[-1])
        inputs = self.contiguous_inputs
        return inputs.reshape(-1, inputs.shape[-1]).T @ flat

    def dropped_history(self, states):
        """The (dropout-scaled) state each step's recurrent GEMM saw, as (T*B, units)."""
        history = states[:self.steps]
        if self.dropout is not None:
            history = history * self.dropout
        return history.reshape(-1, self.units)


def _outputs(packed_data, inputs, backward, name, steps, has_cell_state):
    """Record the packed state array once and expose the op's outputs as views of it.

    ``packed_data`` is ``(T + 1 [+ 1], B, units)``: the initial ``h``, every step's ``h``
    and, for the LSTM, the final ``c``. Returns ``(sequence, final_h[, final_c])``.
    """
    numpy_like = xp()
    packed = record(packed_data, inputs, backward, name)
    shape = packed_data.shape

    def view(data, place):
        def backward_view(g, needs):
            full = numpy_like.zeros(shape, dtype=g.dtype)
            place(full, g)
            return (full,)

        return record(data, (packed,), backward_view, name)

    def place_sequence(full, g):
        full[1:steps + 1] = g.swapaxes(0, 1)

    def place_h(full, g):
        full[steps] = g

    def place_c(full, g):
        full[steps + 1] = g

    sequence = packed_data[1:steps + 1].swapaxes(0, 1)          # a view: no copy unless used
    results = [view(sequence, place_sequence), view(packed_data[steps], place_h)]
    if has_cell_state:
        results.append(view(packed_data[steps + 1], place_c))
    return tuple(results)


def _row_blocks(backend, kernels, gates):
    """The batch row blocks a time loop runs in: the engine's, when the step is a compiled
    kernel; one block for array calls, whose many short calls on threads would pass the GIL
    back and forth (measured slower)."""
    batch = gates.shape[1]
    return backend.batch_blocks(batch, gates.size) if kernels else [slice(0, batch)]


# ------------------------------------------------------------------ LSTM
class _LstmGates:
    """The LSTM's gate arithmetic in the op's internal column order ``[i | f | o | c]``: the
    three recurrent-activation gates side by side, so they activate in one call.

    With Keras' default activations (tanh, sigmoid) a step is the engine's compiled cell
    when it has one (:meth:`~lamina.backends.Backend.lstm_cell_kernels`); otherwise, and
    for other activations, it runs here as array calls.
    """

    def __init__(self, activation, recurrent_activation, units):
        self.units, self.activation, self.recurrent_activation = units, activation, recurrent_activation

    def internal(self, columns):
        """Keras-ordered ``(..., 4u)`` columns ``[i | f | c | o]`` in the internal order
        ``[i | f | o | c]`` (a new array); the same swap maps gradients back to Keras'."""
        u = self.units
        out = xp().empty_like(columns)
        out[..., :2 * u] = columns[..., :2 * u]
        out[..., 2 * u:3 * u] = columns[..., 3 * u:]
        out[..., 3 * u:] = columns[..., 2 * u:3 * u]
        return out

    def compiled_kernels(self, backend, dtype):
        """The engine's compiled cell ``(forward, backward)`` for the default activations
        when it has one, else None (then :meth:`step_forward` and :meth:`step_backward`)."""
        if (self.activation, self.recurrent_activation) == ("tanh", "sigmoid"):
            return backend.lstm_cell_kernels(dtype)
        return None

    def step_forward(self, z, bias, c_old, c_new, cell_activation, h_new):
        """One step's gates, new cell state, ``act(c)`` and ``h`` with any activations;
        the arguments are those of the forward kernel of
        :meth:`~lamina.backends.Backend.lstm_cell_kernels`."""
        numpy_like, gates = xp(), 3 * self.units
        z += bias
        activate(self.recurrent_activation, z[:, :gates])
        activate(self.activation, z[:, gates:])
        i, f, o, g = self._blocks(z)
        numpy_like.multiply(f, c_old, out=c_new)
        numpy_like.multiply(i, g, out=cell_activation)
        c_new += cell_activation
        activate(self.activation, c_new, out=cell_activation)
        numpy_like.multiply(o, cell_activation, out=h_new)

    def step_backward(self, d_h, d_c, gates, cell_activation, c_old, d_gates):
        """The backward of :meth:`step_forward` (arguments as the backward kernel's)."""
        numpy_like, width = xp(), 3 * self.units
        i, f, o, g = self._blocks(gates)
        d_i, d_f, d_o, d_g = self._blocks(d_gates)
        d_cell = derivative(self.activation, cell_activation, numpy_like.empty_like(d_h))
        d_cell *= o
        d_cell *= d_h
        d_cell += d_c
        numpy_like.multiply(d_cell, g, out=d_i)
        numpy_like.multiply(d_cell, c_old, out=d_f)
        numpy_like.multiply(d_h, cell_activation, out=d_o)
        numpy_like.multiply(d_cell, i, out=d_g)
        numpy_like.multiply(d_cell, f, out=d_c)
        scale_by_derivative(self.recurrent_activation, d_gates[:, :width], gates[:, :width])
        scale_by_derivative(self.activation, d_g, g)

    def _blocks(self, columns):
        u = self.units
        return tuple(columns[:, k * u:(k + 1) * u] for k in range(4))


def lstm(inputs, kernel, recurrent_kernel, bias=None, initial_h=None, initial_c=None,
         mask=None, go_backwards=False, activation="tanh", recurrent_activation="sigmoid",
         recurrent_dropout_mask=None):
    """A whole LSTM sequence (Keras' gate order i, f, c, o) as one op.

    Shapes: inputs (B, T, F), kernel (F, 4u), recurrent_kernel (u, 4u), bias (4u,) or
    None, initial_h/initial_c (B, u) or None (zeros), mask (B, T) bool or None,
    recurrent_dropout_mask (B, u) or None (scales ``h`` before the recurrent GEMM).
    Returns (sequence (B, T, u), final_h (B, u), final_c (B, u)).

    The batch rows are independent, so when a step is the engine's compiled cell the
    engine may run row blocks of the whole time loop side by side
    (:meth:`~lamina.backends.Backend.run_blocks`).
    """
    check_activation(activation)
    check_activation(recurrent_activation, "recurrent_activation")
    u_keras, w_keras = data_of(recurrent_kernel), data_of(kernel)
    b_keras = None if bias is None else data_of(bias)
    _check_weights("lstm", data_of(inputs), w_keras, u_keras, b_keras, gates=4)
    u = u_keras.shape[0]
    plan = _LstmGates(activation, recurrent_activation, u)
    seq = _Sequence(inputs, u, mask, go_backwards, recurrent_dropout_mask)
    numpy_like, backend, steps, batch = seq.xp, seq.backend, seq.steps, seq.batch
    loop = recurrent_loop.loop_kernels(seq, "lstm", (w_keras, u_keras, b_keras)) \
        if (activation, recurrent_activation) == ("tanh", "sigmoid") else None
    if loop is not None:
        return recurrent_loop.lstm(loop, seq, plan.internal, w_keras, u_keras, b_keras,
                                   initial_h, initial_c, lambda packed, backward: _outputs(
                                       packed, (inputs, kernel, recurrent_kernel, bias,
                                                initial_h, initial_c), backward, "lstm",
                                       steps, True))
    # Each step is ONE GEMM, [h_t | x_t] @ [U; W]: the input projection rides along in the
    # recurrent GEMM, and after the loop one GEMM gives the gradients of both kernels.
    stacked_kernel = plan.internal(numpy_like.concatenate([u_keras, w_keras]))
    gate_bias = numpy_like.zeros(4 * u, dtype=seq.dtype) if b_keras is None \
        else plan.internal(b_keras)
    gemm_input = numpy_like.empty((steps, batch, u + seq.step_inputs.shape[-1]),
                                  dtype=seq.dtype)
    gemm_input[:, :, u:] = seq.step_inputs
    packed = numpy_like.empty((steps + 2, batch, u), dtype=seq.dtype)
    hs = packed[:steps + 1]
    hs[0] = seq.initial(initial_h)
    cs = numpy_like.empty((steps + 1, batch, u), dtype=seq.dtype)
    cs[0] = seq.initial(initial_c)
    gates = numpy_like.empty((steps, batch, 4 * u), dtype=seq.dtype)      # i, f, o, c
    cell_act = numpy_like.empty((steps, batch, u), dtype=seq.dtype)       # act(c)
    kernels = plan.compiled_kernels(backend, seq.dtype)
    step_forward, step_backward = kernels or (plan.step_forward, plan.step_backward)
    blocks = _row_blocks(backend, kernels, gates)

    def forward_rows(rows):
        steps_views = zip(gates[:, rows], gemm_input[:, rows], cs[:-1, rows], cs[1:, rows],
                          cell_act[:, rows], hs[:-1, rows], hs[1:, rows])
        for t, (z, step_input, c_old, c_new, act, h_old, h_new) in enumerate(steps_views):
            seq.feed(h_old, step_input[:, :u], rows)
            numpy_like.matmul(step_input, stacked_kernel, out=z)
            step_forward(z, gate_bias, c_old, c_new, act, h_new)
            seq.keep_old(t, c_new, c_old, rows)
            seq.keep_old(t, h_new, h_old, rows)

    backend.run_blocks(forward_rows, blocks)
    packed[steps + 1] = cs[steps]

    def backward(g_packed, needs):
        d_gates = numpy_like.empty_like(gates)
        backward_u = stacked_kernel[:u].T
        dh = numpy_like.zeros((batch, u), dtype=g_packed.dtype)
        dc = g_packed[steps + 1].copy()

        def backward_rows(rows):
            dh_rows, dc_rows = dh[rows], dc[rows]
            steps_views = zip(d_gates[:, rows], gates[:, rows], cell_act[:, rows],
                              cs[:-1, rows], g_packed[1:steps + 1, rows])
            for t, (dz, z, act, c_old, upstream) in reversed(list(enumerate(steps_views))):
                dh_rows += upstream
                d_h, dh_carry = seq.split_upstream(t, dh_rows, rows)
                d_c, dc_carry = seq.split_upstream(t, dc_rows, rows)
                step_backward(d_h, d_c, z, act, c_old, dz)
                numpy_like.matmul(dz, backward_u, out=dh_rows)
                if seq.dropout is not None:
                    dh_rows *= seq.dropout[rows]
                if dh_carry is not None:
                    dh_rows += dh_carry
                    numpy_like.add(d_c, dc_carry, out=dc_rows)

        backend.run_blocks(backward_rows, blocks)
        dh += g_packed[0]          # with no steps, the initial h is itself the final one
        flat = d_gates.reshape(-1, 4 * u)
        grad_x = grad_u = grad_w = grad_b = None
        if needs[0]:
            grad_x = seq.input_gradient(d_gates, stacked_kernel[u:])
        if needs[1] or needs[2]:
            stacked_grad = plan.internal(gemm_input.reshape(-1, gemm_input.shape[-1]).T @ flat)
            grad_u, grad_w = stacked_grad[:u], stacked_grad[u:]
        if len(needs) > 3 and needs[3]:
            grad_b = plan.internal(flat.sum(axis=0))
        return grad_x, grad_w, grad_u, grad_b, dh, dc

    return _outputs(packed, (inputs, kernel, recurrent_kernel, bias, initial_h, initial_c),
                    backward, "lstm", steps, True)


# ------------------------------------------------------------------ GRU
def gru(inputs, kernel, recurrent_kernel, bias=None, initial_h=None, mask=None,
        go_backwards=False, activation="tanh", recurrent_activation="sigmoid",
        reset_after=True, recurrent_dropout_mask=None):
    """A whole GRU sequence (Keras' gate order z, r, h) as one op.

    ``reset_after=True`` (Keras 3's default, cuDNN-compatible): bias (2, 3u) holding the
    input bias and the recurrent bias, ``h~ = act(x W_h + b_h + r * (h U_h + b'_h))``.
    ``reset_after=False``: bias (3u,), ``h~ = act(x W_h + b_h + (r * h) U_h)``. Then
    ``h' = z * h + (1 - z) * h~``. Shapes otherwise as :func:`lstm`; returns
    (sequence (B, T, u), final_h (B, u)). With ``reset_after`` and the default activations
    a step's gate arithmetic is the engine's compiled cell when it has one
    (:meth:`~lamina.backends.Backend.gru_cell_kernels`); then the batch rows run in row
    blocks.
    """
    check_activation(activation)
    check_activation(recurrent_activation, "recurrent_activation")
    u_data = xp().ascontiguousarray(data_of(recurrent_kernel))   # BLAS fast path
    u = u_data.shape[0]
    b = None if bias is None else data_of(bias)
    _check_weights("gru", data_of(inputs), data_of(kernel), u_data, b, gates=3,
                   bias_shape=(2, 3 * u) if reset_after else (3 * u,))
    input_bias = b[0] if b is not None and reset_after else b
    seq = _Sequence(inputs, u, mask, go_backwards, recurrent_dropout_mask)
    loop = recurrent_loop.loop_kernels(seq, "gru", (data_of(kernel), u_data, b)) \
        if reset_after and (activation, recurrent_activation) == ("tanh", "sigmoid") else None
    if loop is not None:
        return recurrent_loop.gru(loop, seq, data_of(kernel), u_data, b, initial_h, lambda
                                  packed, backward: _outputs(packed, (inputs, kernel,
                                  recurrent_kernel, bias, initial_h), backward, "gru",
                                  seq.steps, False))
    projection = seq.project(data_of(kernel), input_bias)
    numpy_like, backend, steps, batch = seq.xp, seq.backend, seq.steps, seq.batch
    recurrent_bias = None
    if reset_after:
        recurrent_bias = numpy_like.zeros(3 * u, dtype=seq.dtype) if b is None else b[1]
    packed = numpy_like.empty((steps + 1, batch, u), dtype=seq.dtype)
    packed[0] = seq.initial(initial_h)
    gates = numpy_like.empty((steps, batch, 3 * u), dtype=seq.dtype)     # z, r, h~
    # reset_after: the recurrent part of the candidate; else r * h (the candidate GEMM input)
    memory = numpy_like.empty((steps, batch, u), dtype=seq.dtype)
    u_zr, u_h = u_data[:, :2 * u], u_data[:, 2 * u:]
    kernels = None
    if reset_after and (activation, recurrent_activation) == ("tanh", "sigmoid"):
        kernels = backend.gru_cell_kernels(seq.dtype)
    blocks = _row_blocks(backend, kernels, gates)

    def step_forward(t, rows, h):
        """Gates, memory and the new state of step ``t`` for the batch rows ``rows``."""
        x_part, g, m, h_new = projection[t, rows], gates[t, rows], memory[t, rows], \
            packed[t + 1, rows]
        if reset_after:
            recurrent = h @ u_data
            if kernels is not None:
                kernels[0](x_part, recurrent, recurrent_bias, h, g, m, h_new)
                return
            recurrent += recurrent_bias
            numpy_like.add(x_part[:, :2 * u], recurrent[:, :2 * u], out=g[:, :2 * u])
            activate(recurrent_activation, g[:, :2 * u])
            m[...] = recurrent[:, 2 * u:]
            numpy_like.multiply(g[:, u:2 * u], m, out=g[:, 2 * u:])
        else:
            numpy_like.add(x_part[:, :2 * u], h @ u_zr, out=g[:, :2 * u])
            activate(recurrent_activation, g[:, :2 * u])
            numpy_like.multiply(g[:, u:2 * u], h, out=m)
            g[:, 2 * u:] = m @ u_h
        g[:, 2 * u:] += x_part[:, 2 * u:]
        candidate = activate(activation, g[:, 2 * u:])
        numpy_like.subtract(h, candidate, out=h_new)
        h_new *= g[:, :u]
        h_new += candidate

    def forward_rows(rows):
        for t in range(steps):
            step_forward(t, rows, seq.dropped(packed[t, rows], rows))
            seq.keep_old(t, packed[t + 1, rows], packed[t, rows], rows)

    backend.run_blocks(forward_rows, blocks)

    def backward(g_packed, needs):
        d_input = numpy_like.empty_like(gates)          # d(pre-activations), input side
        d_recurrent = numpy_like.empty_like(gates) if reset_after else None
        u_t, u_zr_t, u_h_t = u_data.T, u_zr.T, u_h.T
        dh = numpy_like.zeros((batch, u), dtype=g_packed.dtype)

        def step_backward(t, rows, dh_new, h):
            """The gradient reaching the state before step ``t`` from ``dh_new``, the one
            reaching its output; writes the step's pre-activation gradients."""
            g, dg = gates[t, rows], d_input[t, rows]
            if kernels is not None:
                d_rec, direct = d_recurrent[t, rows], numpy_like.empty_like(dh_new)
                kernels[1](dh_new, h, g, memory[t, rows], dg, d_rec, direct)
                previous = d_rec @ u_t
                previous += direct
                return previous
            z, r, candidate = g[:, :u], g[:, u:2 * u], g[:, 2 * u:]
            d_cand = dg[:, 2 * u:]
            numpy_like.multiply(dh_new, 1 - z, out=d_cand)
            scale_by_derivative(activation, d_cand, candidate)
            numpy_like.multiply(dh_new, h - candidate, out=dg[:, :u])
            scale_by_derivative(recurrent_activation, dg[:, :u], z)
            if reset_after:
                numpy_like.multiply(d_cand, memory[t, rows], out=dg[:, u:2 * u])
                scale_by_derivative(recurrent_activation, dg[:, u:2 * u], r)
                d_rec = d_recurrent[t, rows]
                d_rec[:, :2 * u] = dg[:, :2 * u]
                numpy_like.multiply(d_cand, r, out=d_rec[:, 2 * u:])
                previous = d_rec @ u_t
            else:
                d_reset_h = d_cand @ u_h_t
                numpy_like.multiply(d_reset_h, h, out=dg[:, u:2 * u])
                scale_by_derivative(recurrent_activation, dg[:, u:2 * u], r)
                previous = dg[:, :2 * u] @ u_zr_t
                previous += d_reset_h * r
            previous += dh_new * z
            return previous

        def backward_rows(rows):
            dh_rows = dh[rows]
            for t in range(steps - 1, -1, -1):
                dh_rows += g_packed[t + 1, rows]
                dh_new, dh_carry = seq.split_upstream(t, dh_rows, rows)
                dh_rows[...] = step_backward(t, rows, dh_new,
                                             seq.dropped(packed[t, rows], rows))
                if seq.dropout is not None:
                    dh_rows *= seq.dropout[rows]
                if dh_carry is not None:
                    dh_rows += dh_carry

        backend.run_blocks(backward_rows, blocks)
        grad_x = seq.input_gradient(d_input, data_of(kernel)) if needs[0] else None
        grad_w = seq.kernel_gradient(d_input) if needs[1] else None
        flat_input = d_input.reshape(-1, 3 * u)
        grad_u = grad_b = None
        if reset_after:
            flat_recurrent = d_recurrent.reshape(-1, 3 * u)
            if needs[2]:
                grad_u = seq.dropped_history(packed).T @ flat_recurrent
            if len(needs) > 3 and needs[3]:
                grad_b = numpy_like.stack([flat_input.sum(axis=0), flat_recurrent.sum(axis=0)])
        else:
            if needs[2]:
                grad_u = numpy_like.concatenate(
                    [seq.dropped_history(packed).T @ flat_input[:, :2 * u],
                     memory.reshape(-1, u).T @ flat_input[:, 2 * u:]], axis=1)
            if len(needs) > 3 and needs[3]:
                grad_b = flat_input.sum(axis=0)
        dh += g_packed[0]          # with no steps, the initial h is itself the final one
        return grad_x, grad_w, grad_u, grad_b, dh

    return _outputs(packed, (inputs, kernel, recurrent_kernel, bias, initial_h), backward,
                    "gru", steps, False)


# ------------------------------------------------------------------ simple RNN
def simple_rnn(inputs, kernel, recurrent_kernel, bias=None, initial_h=None, mask=None,
               go_backwards=False, activation="tanh", recurrent_dropout_mask=None):
    """A whole simple-RNN sequence ``h' = act(x W + h U + b)`` as one op.

    Shapes: kernel (F, u), recurrent_kernel (u, u), bias (u,) or None; otherwise as
    :func:`lstm`. Returns (sequence (B, T, u), final_h (B, u)).
    """
    check_activation(activation)
    u_data = xp().ascontiguousarray(data_of(recurrent_kernel))   # BLAS fast path
    u = u_data.shape[0]
    b = None if bias is None else data_of(bias)
    _check_weights("simple_rnn", data_of(inputs), data_of(kernel), u_data, b, gates=1)
    seq = _Sequence(inputs, u, mask, go_backwards, recurrent_dropout_mask)
    loop = recurrent_loop.loop_kernels(seq, "simple_rnn", (data_of(kernel), u_data, b)) \
        if activation == "tanh" else None
    if loop is not None:
        return recurrent_loop.simple_rnn(loop, seq, data_of(kernel), u_data, b, initial_h,
                                         lambda packed, backward: _outputs(
                                             packed, (inputs, kernel, recurrent_kernel,
                                                      bias, initial_h), backward,
                                             "simple_rnn", seq.steps, False))
    projection = seq.project(data_of(kernel), b)
    numpy_like, steps, batch = seq.xp, seq.steps, seq.batch
    packed = numpy_like.empty((steps + 1, batch, u), dtype=seq.dtype)
    packed[0] = seq.initial(initial_h)
    activated = numpy_like.empty((steps, batch, u), dtype=seq.dtype)
    for t in range(steps):
        a = activated[t]
        numpy_like.matmul(seq.dropped(packed[t]), u_data, out=a)
        a += projection[t]
        activate(activation, a)
        packed[t + 1] = a
        seq.keep_old(t, packed[t + 1], packed[t])

    def backward(g_packed, needs):
        d_pre = numpy_like.empty_like(activated)
        u_t = u_data.T
        dh = numpy_like.zeros((batch, u), dtype=g_packed.dtype)
        for t in range(steps - 1, -1, -1):
            dh = dh + g_packed[t + 1]
            dh_new, dh_carry = seq.split_upstream(t, dh)
            d_pre[t] = dh_new
            scale_by_derivative(activation, d_pre[t], activated[t])
            dh = d_pre[t] @ u_t
            if seq.dropout is not None:
                dh *= seq.dropout
            if dh_carry is not None:
                dh += dh_carry
        grad_x = seq.input_gradient(d_pre, data_of(kernel)) if needs[0] else None
        grad_w = seq.kernel_gradient(d_pre) if needs[1] else None
        flat = d_pre.reshape(-1, u)
        grad_u = seq.dropped_history(packed).T @ flat if needs[2] else None
        grad_b = flat.sum(axis=0) if len(needs) > 3 and needs[3] else None
        dh += g_packed[0]          # with no steps, the initial h is itself the final one
        return grad_x, grad_w, grad_u, grad_b, dh

    return _outputs(packed, (inputs, kernel, recurrent_kernel, bias, initial_h), backward,
                    "simple_rnn", steps, False)

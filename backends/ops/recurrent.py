"""Fused recurrent ops: a whole LSTM, GRU or simple-RNN sequence as ONE recorded op with a
hand-written backward (backpropagation through time).

Forward: the input projection of every step is one GEMM before the loop; each step does one
GEMM for the recurrent part and the gate math in place on preallocated storage. Backward
mirrors the loop, keeping only the per-step recurrent GEMM inside it; the gradients of the
input, the kernel, the recurrent kernel and the bias are each one big GEMM (or sum) over all
steps after the loop. The LSTM computes in its own gate order ``[i | f | o | c]`` with
pre-scaled sigmoid columns, so a step's four activations are one ``tanh`` (see
:class:`_LstmGates`); its arguments and gradients stay in Keras' order.

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
from .core import data_of, index_data, record, xp
from .nn import _sigmoid

RECURRENT_ACTIVATIONS = ("tanh", "sigmoid", "relu", "hard_sigmoid", "linear")


# ------------------------------------------------------------------ activations in place
def _activate(name, a, out=None):
    """Apply activation ``name`` to ``a`` in place, or into ``out`` when given (either may
    be a strided view); returns the result."""
    numpy_like = xp()
    if out is not None:
        if name == "tanh":
            return numpy_like.tanh(a, out=out)
        out[...] = a
        a = out
    if name == "tanh":
        numpy_like.tanh(a, out=a)
    elif name == "sigmoid":
        _sigmoid(a, out=a)
    elif name == "relu":
        numpy_like.maximum(a, 0, out=a)
    elif name == "hard_sigmoid":
        a *= 1.0 / 6.0
        a += 0.5
        numpy_like.clip(a, 0, 1, out=a)
    elif name != "linear":
        raise ValueError(f"fused recurrent ops support the activations "
                         f"{RECURRENT_ACTIVATIONS}, got {name!r}")
    return a


def _derivative(name, y, out):
    """Write ``act'(x)`` into ``out``, in terms of ``y = act(x)``; returns ``out``."""
    numpy_like = xp()
    if name == "tanh":
        numpy_like.multiply(y, y, out=out)
        numpy_like.subtract(1, out, out=out)
    elif name == "sigmoid":
        numpy_like.subtract(1, y, out=out)
        out *= y
    elif name == "relu":
        numpy_like.greater(y, 0, out=out)
    elif name == "hard_sigmoid":
        numpy_like.logical_and(y > 0, y < 1, out=out)
        out *= 1.0 / 6.0
    else:
        out[...] = 1
    return out


def _scale_by_derivative(name, g, y):
    """``g *= act'(x)`` in place, with the derivative written in terms of ``y = act(x)``."""
    if name != "linear":
        g *= _derivative(name, y, xp().empty_like(g))
    return g


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
    """The pieces every recurrent op shares: the input in processing (step-major) order, its
    projection, the mask, the initial state and the recurrent-dropout mask.

    Everything per step is stored step-major, ``(time, batch, ...)``, contiguous in
    processing order, so a step is one contiguous block and the gradients of the input and
    the kernel are plain GEMMs over all steps. ``kernel`` is what the input gradient uses;
    the projection uses ``projection_kernel`` when given (the LSTM's pre-scaled columns).
    """

    def __init__(self, inputs, kernel, bias, units, mask, go_backwards, recurrent_mask,
                 projection_kernel=None):
        backend = state.backend()
        self.xp = backend.xp
        a = data_of(inputs)
        if a.ndim != 3:
            raise ValueError(f"recurrent ops need inputs of shape (batch, time, features), "
                             f"got shape {tuple(a.shape)}")
        self.kernel = kernel
        self.batch, self.steps = a.shape[0], a.shape[1]
        self.units = units
        self.dtype = a.dtype
        self.go_backwards = go_backwards
        self.steps_input = self.xp.ascontiguousarray(self.step_major(a))      # (T, B, F)
        self.projection = backend.linear(                  # ONE GEMM for all steps
            self.steps_input, kernel if projection_kernel is None else projection_kernel, bias)
        self.keep = self.keep_float = None
        if mask is not None:
            keep = index_data(mask).astype(bool)
            if tuple(keep.shape) != (self.batch, self.steps):
                raise ValueError(f"recurrent mask must have shape (batch, time) = "
                                 f"{(self.batch, self.steps)}, got {tuple(keep.shape)}")
            if not bool(keep.all()):
                self.keep = self.step_major(keep)[..., None]               # (T, B, 1)
                self.keep_float = self.keep.astype(self.dtype)
        self.dropout = None if recurrent_mask is None else data_of(recurrent_mask)

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

    def dropped(self, h):
        """``h`` as the recurrent GEMM sees it."""
        return h if self.dropout is None else h * self.dropout

    def carry(self, t, new, old):
        """The state after step ``t``: ``new`` where the step is valid, else ``old``."""
        if self.keep is None:
            return new
        return self.xp.where(self.keep[t], new, old)

    def split_upstream(self, t, grad):
        """(gradient reaching the cell's new state, gradient carried past a masked step)."""
        if self.keep is None:
            return grad, None
        through = grad * self.keep_float[t]
        return through, grad - through

    def input_gradients(self, needs, d_projection):
        """Gradients of the inputs and the kernel from the step-major gradient of the
        projection (T, B, G): one GEMM each."""
        grad_x = grad_w = None
        flat = d_projection.reshape(self.batch * self.steps, -1)
        if needs[0]:
            grad_steps = (flat @ self.kernel.T).reshape(self.steps, self.batch, -1)
            if self.go_backwards:
                grad_steps = grad_steps[::-1]
            grad_x = self.xp.ascontiguousarray(grad_steps.swapaxes(0, 1))
        if needs[1]:
            grad_w = self.steps_input.reshape(flat.shape[0], -1).T @ flat
        return grad_x, grad_w

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

    sequence = numpy_like.ascontiguousarray(packed_data[1:steps + 1].swapaxes(0, 1))
    results = [view(sequence, place_sequence), view(packed_data[steps], place_h)]
    if has_cell_state:
        results.append(view(packed_data[steps + 1], place_c))
    return tuple(results)


# ------------------------------------------------------------------ LSTM
class _LstmGates:
    """The LSTM's gate arithmetic in the op's internal column order ``[i | f | o | c]``: the
    three recurrent-activation gates side by side, so they activate in one call.

    With Keras' default activations (tanh, sigmoid) the i, f, o columns of the kernels and
    bias are pre-scaled by 1/2, so one tanh over all four blocks and one affine map give
    ``sigmoid(z) = (1 + tanh(z / 2)) / 2`` for i, f, o and ``tanh(z)`` for c.
    """

    def __init__(self, activation, recurrent_activation, units, dtype):
        numpy_like = xp()
        u = units
        self.units, self.activation, self.recurrent_activation = u, activation, recurrent_activation
        keras = numpy_like.arange(4 * u)
        # internal column j is Keras column order[j]; swapping two blocks is its own inverse
        self.order = numpy_like.concatenate([keras[:2 * u], keras[3 * u:], keras[2 * u:3 * u]])
        self.fused = activation == "tanh" and recurrent_activation == "sigmoid"
        if self.fused:
            def blocks(gate_value, cell_value):
                return numpy_like.concatenate([numpy_like.full(3 * u, gate_value, dtype),
                                               numpy_like.full(u, cell_value, dtype)])

            self.column_scale = blocks(0.5, 1.0)        # kernels' pre-scaling; sigmoid = t/2 +
            self.output_offset = blocks(0.5, 0.0)       # 1/2 from t = tanh(z/2)
            self.slope_scale = blocks(0.25, 1.0)        # sigmoid'(z) = (1 - t^2) / 4

    def internal(self, columns, scaled):
        """Keras-ordered ``(..., 4u)`` columns in the internal order (a new array),
        pre-scaled for the forward pass when ``scaled``."""
        out = columns[..., self.order]
        if scaled and self.fused:
            out *= self.column_scale
        return out

    def keras(self, columns):
        """Internal-ordered gradient columns back in Keras' order."""
        return columns[..., self.order]

    def activate(self, z, slope):
        """Activate the pre-activations ``z`` (batch, 4u) in place and write each gate's
        derivative with respect to its (unscaled) pre-activation into ``slope``."""
        numpy_like = xp()
        if self.fused:
            numpy_like.tanh(z, out=z)
            numpy_like.multiply(z, z, out=slope)
            numpy_like.subtract(1, slope, out=slope)
            slope *= self.slope_scale
            z *= self.column_scale
            z += self.output_offset
            return
        gates = 3 * self.units
        for name, block in ((self.recurrent_activation, slice(None, gates)),
                            (self.activation, slice(gates, None))):
            _derivative(name, _activate(name, z[:, block]), slope[:, block])


def lstm(inputs, kernel, recurrent_kernel, bias=None, initial_h=None, initial_c=None,
         mask=None, go_backwards=False, activation="tanh", recurrent_activation="sigmoid",
         recurrent_dropout_mask=None):
    """A whole LSTM sequence (Keras' gate order i, f, c, o) as one op.

    Shapes: inputs (B, T, F), kernel (F, 4u), recurrent_kernel (u, 4u), bias (4u,) or
    None, initial_h/initial_c (B, u) or None (zeros), mask (B, T) bool or None,
    recurrent_dropout_mask (B, u) or None (scales ``h`` before the recurrent GEMM).
    Returns (sequence (B, T, u), final_h (B, u), final_c (B, u)).
    """
    check_activation(activation)
    check_activation(recurrent_activation, "recurrent_activation")
    u_keras, w_keras = data_of(recurrent_kernel), data_of(kernel)
    _check_weights("lstm", data_of(inputs), w_keras, u_keras,
                   None if bias is None else data_of(bias), gates=4)
    u = u_keras.shape[0]
    plan = _LstmGates(activation, recurrent_activation, u, w_keras.dtype)
    seq = _Sequence(inputs, plan.internal(w_keras, scaled=False),
                    None if bias is None else plan.internal(data_of(bias), scaled=True),
                    u, mask, go_backwards, recurrent_dropout_mask,
                    projection_kernel=plan.internal(w_keras, scaled=True))
    numpy_like, steps, batch = seq.xp, seq.steps, seq.batch
    forward_u = plan.internal(u_keras, scaled=True)
    packed = numpy_like.empty((steps + 2, batch, u), dtype=seq.dtype)
    hs = packed[:steps + 1]
    hs[0] = seq.initial(initial_h)
    cs = numpy_like.empty((steps + 1, batch, u), dtype=seq.dtype)
    cs[0] = seq.initial(initial_c)
    gates = numpy_like.empty((steps, batch, 4 * u), dtype=seq.dtype)      # i, f, o, c
    slopes = numpy_like.empty_like(gates)        # d(gate) / d(its pre-activation)
    cell_act = numpy_like.empty((steps, batch, u), dtype=seq.dtype)       # act(c)

    # Views of every step's slices, made before the loop so the loop only iterates them.
    steps_views = zip(gates, slopes, cell_act, seq.projection,
                      *(gates[..., k * u:(k + 1) * u] for k in range(4)))
    for t, (z, slope, tc, projection, i, f, o, g) in enumerate(steps_views):
        numpy_like.matmul(seq.dropped(hs[t]), forward_u, out=z)
        z += projection
        plan.activate(z, slope)
        if seq.keep is None:
            # Write the new states straight into their history slots (no temporaries).
            c_new = cs[t + 1]
            numpy_like.multiply(f, cs[t], out=c_new)
            numpy_like.multiply(i, g, out=tc)
            c_new += tc
            _activate(activation, c_new, out=tc)
            numpy_like.multiply(o, tc, out=hs[t + 1])
            continue
        c_new = f * cs[t]
        c_new += i * g
        _activate(activation, c_new, out=tc)
        cs[t + 1] = seq.carry(t, c_new, cs[t])
        hs[t + 1] = seq.carry(t, o * tc, hs[t])
    packed[steps + 1] = cs[steps]

    def backward(g_packed, needs):
        d_gates = numpy_like.empty_like(gates)
        backward_u = numpy_like.ascontiguousarray(plan.internal(u_keras, scaled=False).T)
        dh = numpy_like.zeros((batch, u), dtype=g_packed.dtype)
        dc = g_packed[steps + 1].copy()
        d_cell = numpy_like.empty_like(dh)
        steps_views = zip(d_gates, slopes, cell_act, cs, g_packed[1:steps + 1],
                          *(gates[..., k * u:(k + 1) * u] for k in range(4)),
                          *(d_gates[..., k * u:(k + 1) * u] for k in range(4)))
        for t, (dz, slope, tc, c_old, upstream, i, f, o, g, di, df, do, dg) in \
                reversed(list(enumerate(steps_views))):
            dh += upstream
            dh_new, dh_carry = seq.split_upstream(t, dh)
            dc_new, dc_carry = seq.split_upstream(t, dc)
            _derivative(activation, tc, d_cell)
            d_cell *= o
            d_cell *= dh_new
            d_cell += dc_new
            numpy_like.multiply(d_cell, g, out=di)
            numpy_like.multiply(d_cell, c_old, out=df)
            numpy_like.multiply(dh_new, tc, out=do)
            numpy_like.multiply(d_cell, i, out=dg)
            dz *= slope
            numpy_like.multiply(d_cell, f, out=dc)
            numpy_like.matmul(dz, backward_u, out=dh)
            if seq.dropout is not None:
                dh *= seq.dropout
            if dh_carry is not None:
                dh += dh_carry
                dc += dc_carry
        grad_x, grad_w = seq.input_gradients(needs, d_gates)
        flat = d_gates.reshape(-1, 4 * u)
        grad_u = plan.keras(seq.dropped_history(hs).T @ flat) if needs[2] else None
        grad_b = plan.keras(flat.sum(axis=0)) if len(needs) > 3 and needs[3] else None
        return (grad_x, None if grad_w is None else plan.keras(grad_w), grad_u, grad_b,
                dh, dc)

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
    (sequence (B, T, u), final_h (B, u)).
    """
    check_activation(activation)
    check_activation(recurrent_activation, "recurrent_activation")
    u_data = xp().ascontiguousarray(data_of(recurrent_kernel))   # BLAS fast path
    u = u_data.shape[0]
    b = None if bias is None else data_of(bias)
    _check_weights("gru", data_of(inputs), data_of(kernel), u_data, b, gates=3,
                   bias_shape=(2, 3 * u) if reset_after else (3 * u,))
    input_bias = b[0] if b is not None and reset_after else b
    recurrent_bias = b[1] if b is not None and reset_after else None
    seq = _Sequence(inputs, data_of(kernel), input_bias, u, mask, go_backwards,
                    recurrent_dropout_mask)
    numpy_like, steps, batch = seq.xp, seq.steps, seq.batch
    packed = numpy_like.empty((steps + 1, batch, u), dtype=seq.dtype)
    packed[0] = seq.initial(initial_h)
    gates = numpy_like.empty((steps, batch, 3 * u), dtype=seq.dtype)     # z, r, h~
    # reset_after: the recurrent part of the candidate; else r * h (the candidate GEMM input)
    memory = numpy_like.empty((steps, batch, u), dtype=seq.dtype)
    u_zr, u_h = u_data[:, :2 * u], u_data[:, 2 * u:]
    for t in range(steps):
        h = seq.dropped(packed[t])
        x_part, g = seq.projection[t], gates[t]
        if reset_after:
            recurrent = h @ u_data
            if recurrent_bias is not None:
                recurrent += recurrent_bias
            numpy_like.add(x_part[:, :2 * u], recurrent[:, :2 * u], out=g[:, :2 * u])
            _activate(recurrent_activation, g[:, :2 * u])
            memory[t] = recurrent[:, 2 * u:]
            numpy_like.multiply(g[:, u:2 * u], memory[t], out=g[:, 2 * u:])
        else:
            numpy_like.add(x_part[:, :2 * u], h @ u_zr, out=g[:, :2 * u])
            _activate(recurrent_activation, g[:, :2 * u])
            numpy_like.multiply(g[:, u:2 * u], h, out=memory[t])
            g[:, 2 * u:] = memory[t] @ u_h
        g[:, 2 * u:] += x_part[:, 2 * u:]
        candidate = _activate(activation, g[:, 2 * u:])
        h_new = h - candidate
        h_new *= g[:, :u]
        h_new += candidate
        packed[t + 1] = seq.carry(t, h_new, packed[t])

    def backward(g_packed, needs):
        d_input = numpy_like.empty_like(gates)          # d(pre-activations), input side
        d_recurrent = numpy_like.empty_like(gates) if reset_after else None
        u_t, u_zr_t, u_h_t = u_data.T, u_zr.T, u_h.T
        dh = numpy_like.zeros((batch, u), dtype=g_packed.dtype)
        for t in range(steps - 1, -1, -1):
            dh = dh + g_packed[t + 1]
            dh_new, dh_carry = seq.split_upstream(t, dh)
            h = seq.dropped(packed[t])
            g, dg = gates[t], d_input[t]
            z, r, candidate = g[:, :u], g[:, u:2 * u], g[:, 2 * u:]
            d_cand = dg[:, 2 * u:]
            numpy_like.multiply(dh_new, 1 - z, out=d_cand)
            _scale_by_derivative(activation, d_cand, candidate)
            numpy_like.multiply(dh_new, h - candidate, out=dg[:, :u])
            _scale_by_derivative(recurrent_activation, dg[:, :u], z)
            if reset_after:
                numpy_like.multiply(d_cand, memory[t], out=dg[:, u:2 * u])
                _scale_by_derivative(recurrent_activation, dg[:, u:2 * u], r)
                d_rec = d_recurrent[t]
                d_rec[:, :2 * u] = dg[:, :2 * u]
                numpy_like.multiply(d_cand, r, out=d_rec[:, 2 * u:])
                dh = d_rec @ u_t
            else:
                d_reset_h = d_cand @ u_h_t
                numpy_like.multiply(d_reset_h, h, out=dg[:, u:2 * u])
                _scale_by_derivative(recurrent_activation, dg[:, u:2 * u], r)
                dh = dg[:, :2 * u] @ u_zr_t
                dh += d_reset_h * r
            dh += dh_new * z
            if seq.dropout is not None:
                dh *= seq.dropout
            if dh_carry is not None:
                dh += dh_carry
        grad_x, grad_w = seq.input_gradients(needs, d_input)
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
    seq = _Sequence(inputs, data_of(kernel), b, u, mask, go_backwards,
                    recurrent_dropout_mask)
    numpy_like, steps, batch = seq.xp, seq.steps, seq.batch
    packed = numpy_like.empty((steps + 1, batch, u), dtype=seq.dtype)
    packed[0] = seq.initial(initial_h)
    activated = numpy_like.empty((steps, batch, u), dtype=seq.dtype)
    for t in range(steps):
        a = activated[t]
        numpy_like.matmul(seq.dropped(packed[t]), u_data, out=a)
        a += seq.projection[t]
        _activate(activation, a)
        packed[t + 1] = seq.carry(t, a, packed[t])

    def backward(g_packed, needs):
        d_pre = numpy_like.empty_like(activated)
        u_t = u_data.T
        dh = numpy_like.zeros((batch, u), dtype=g_packed.dtype)
        for t in range(steps - 1, -1, -1):
            dh = dh + g_packed[t + 1]
            dh_new, dh_carry = seq.split_upstream(t, dh)
            d_pre[t] = dh_new
            _scale_by_derivative(activation, d_pre[t], activated[t])
            dh = d_pre[t] @ u_t
            if seq.dropout is not None:
                dh *= seq.dropout
            if dh_carry is not None:
                dh += dh_carry
        grad_x, grad_w = seq.input_gradients(needs, d_pre)
        flat = d_pre.reshape(-1, u)
        grad_u = seq.dropped_history(packed).T @ flat if needs[2] else None
        grad_b = flat.sum(axis=0) if len(needs) > 3 and needs[3] else None
        return grad_x, grad_w, grad_u, grad_b, dh

    return _outputs(packed, (inputs, kernel, recurrent_kernel, bias, initial_h), backward,
                    "simple_rnn", steps, False)

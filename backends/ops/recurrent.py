"""Fused recurrent ops: a whole LSTM, GRU or simple-RNN sequence as ONE recorded op with a
hand-written backward (backpropagation through time).

Forward: the input projection of every step is one GEMM before the loop; each step does one
GEMM for the recurrent part and the gate math in place on preallocated storage. Backward
mirrors the loop, keeping only the per-step recurrent GEMM inside it; the gradients of the
input, the kernel, the recurrent kernel and the bias are each one big GEMM (or sum) over all
steps after the loop.

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

import contextlib

from .. import state
from .core import data_of, index_data, record, xp

try:                                   # scikit-learn's dependency, so normally present
    import threadpoolctl
except ImportError:                    # pragma: no cover
    threadpoolctl = None

RECURRENT_ACTIVATIONS = ("tanh", "sigmoid", "relu", "hard_sigmoid", "linear")


# ------------------------------------------------------------------ activations in place
def _activate(name, a):
    """Apply activation ``name`` to ``a`` in place (``a`` may be a strided view)."""
    numpy_like = xp()
    if name == "tanh":
        numpy_like.tanh(a, out=a)
    elif name == "sigmoid":
        a *= 0.5
        numpy_like.tanh(a, out=a)
        a += 1
        a *= 0.5
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


def _scale_by_derivative(name, g, y):
    """``g *= act'(x)`` in place, with the derivative written in terms of ``y = act(x)``."""
    if name == "tanh":
        g *= 1 - y * y
    elif name == "sigmoid":
        g *= y * (1 - y)
    elif name == "relu":
        g *= y > 0
    elif name == "hard_sigmoid":
        g *= ((y > 0) & (y < 1)).astype(g.dtype) * g.dtype.type(1.0 / 6.0)
    return g


def check_activation(name, what="activation"):
    """Raise a ``ValueError`` unless ``name`` is an activation the fused ops support."""
    if name not in RECURRENT_ACTIVATIONS:
        raise ValueError(f"recurrent {what} must be one of {RECURRENT_ACTIVATIONS}, "
                         f"got {name!r}")


# ------------------------------------------------------------------ BLAS threads
_BLAS = []          # lazily: [threadpoolctl controller of the BLAS libraries, or None]
_SERIAL_STEP_MACS = 1 << 24


def _serial_blas(batch, units, width):
    """A context running the time loop's small per-step GEMMs on one BLAS thread.

    A multithreaded BLAS spends more on waking and synchronising its threads than a
    (batch, units) x (units, gates) product costs, and far more on a busy machine. Only
    the NumPy engine, and only when a step's GEMM is small; the big GEMMs before and after
    the loop keep every thread.
    """
    if threadpoolctl is None or xp().__name__ != "numpy" or \
            batch * units * width > _SERIAL_STEP_MACS:
        return contextlib.nullcontext()
    if not _BLAS:
        try:
            _BLAS.append(threadpoolctl.ThreadpoolController().select(user_api="blas"))
        except Exception:              # pragma: no cover - an exotic BLAS build
            _BLAS.append(None)
    if _BLAS[0] is None or not _BLAS[0].lib_controllers:
        return contextlib.nullcontext()
    return _BLAS[0].limit(limits=1)


# ------------------------------------------------------------------ shared plumbing
class _Sequence:
    """The pieces every recurrent op shares: the input, its step-major projection, the
    mask in processing order, the initial state and the recurrent-dropout mask."""

    def __init__(self, inputs, kernel, bias, units, mask, go_backwards, recurrent_mask):
        backend = state.backend()
        self.xp = backend.xp
        self.a = data_of(inputs)
        if self.a.ndim != 3:
            raise ValueError(f"recurrent ops need inputs of shape (batch, time, features), "
                             f"got shape {tuple(self.a.shape)}")
        self.w = data_of(kernel)
        self.batch, self.steps = self.a.shape[0], self.a.shape[1]
        self.units = units
        self.dtype = self.a.dtype
        self.go_backwards = go_backwards
        projection = backend.linear(self.a, self.w, bias)      # ONE GEMM for all steps
        self.projection = self.step_major(projection)
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

    def batch_major(self, array):
        """Inverse of :meth:`step_major`, as a contiguous (batch * time, ...) matrix."""
        if self.go_backwards:
            array = array[::-1]
        return self.xp.ascontiguousarray(array.swapaxes(0, 1)).reshape(
            self.batch * self.steps, -1)

    def initial(self, value):
        if value is None:
            return self.xp.zeros((self.batch, self.units), dtype=self.dtype)
        data = data_of(value)
        if tuple(data.shape) != (self.batch, self.units):
            raise ValueError(f"recurrent initial state must have shape (batch, units) = "
                             f"{(self.batch, self.units)}, got {tuple(data.shape)}")
        return data

    def dropped(self, h):
        return h if self.dropout is None else h * self.dropout

    def carry(self, t, new, old):
        """The state after step ``t``: ``new`` where the step is valid, else ``old``."""
        if self.keep is None:
            return new
        return self.xp.where(self.keep[t], new, old)

    def split_upstream(self, t, dh):
        """(gradient reaching the cell's new state, gradient carried past a masked step)."""
        if self.keep is None:
            return dh, None
        through = dh * self.keep_float[t]
        return through, dh - through

    def input_gradients(self, needs, d_projection):
        """Gradients of the inputs and the kernel from the step-major gradient of the
        projection (T, B, G): one GEMM each."""
        grad_x = grad_w = None
        if needs[0] or needs[1]:
            flat = self.batch_major(d_projection)
            if needs[0]:
                grad_x = (flat @ self.w.T).reshape(self.a.shape)
            if needs[1]:
                grad_w = self.a.reshape(-1, self.a.shape[-1]).T @ flat
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
    u_data = xp().ascontiguousarray(data_of(recurrent_kernel))   # BLAS fast path
    u = u_data.shape[0]
    seq = _Sequence(inputs, kernel, None if bias is None else data_of(bias), u, mask,
                    go_backwards, recurrent_dropout_mask)
    numpy_like, steps, batch = seq.xp, seq.steps, seq.batch
    packed = numpy_like.empty((steps + 2, batch, u), dtype=seq.dtype)
    hs = packed[:steps + 1]
    hs[0] = seq.initial(initial_h)
    cs = numpy_like.empty((steps + 1, batch, u), dtype=seq.dtype)
    cs[0] = seq.initial(initial_c)
    gates = numpy_like.empty((steps, batch, 4 * u), dtype=seq.dtype)
    cell_act = numpy_like.empty((steps, batch, u), dtype=seq.dtype)
    with _serial_blas(batch, u, 4 * u):
        for t in range(steps):
            z = gates[t]
            numpy_like.matmul(seq.dropped(hs[t]), u_data, out=z)
            z += seq.projection[t]
            _activate(recurrent_activation, z[:, :2 * u])
            _activate(activation, z[:, 2 * u:3 * u])
            _activate(recurrent_activation, z[:, 3 * u:])
            i, f, g, o = z[:, :u], z[:, u:2 * u], z[:, 2 * u:3 * u], z[:, 3 * u:]
            tc = cell_act[t]
            if seq.keep is None:
                # Write the new states straight into their history slots (no temporaries).
                c_new = cs[t + 1]
                numpy_like.multiply(f, cs[t], out=c_new)
                numpy_like.multiply(i, g, out=tc)
                c_new += tc
                tc[...] = c_new
                _activate(activation, tc)
                numpy_like.multiply(o, tc, out=hs[t + 1])
                continue
            c_new = f * cs[t]
            c_new += i * g
            tc[...] = c_new
            _activate(activation, tc)
            cs[t + 1] = seq.carry(t, c_new, cs[t])
            hs[t + 1] = seq.carry(t, o * tc, hs[t])
    packed[steps + 1] = cs[steps]

    def backward(g_packed, needs):
        d_gates = numpy_like.empty_like(gates)
        u_t = u_data.T
        dh = numpy_like.zeros((batch, u), dtype=g_packed.dtype)
        dc = g_packed[steps + 1].copy()
        with _serial_blas(batch, u, 4 * u):
            for t in range(steps - 1, -1, -1):
                dh = dh + g_packed[t + 1]
                dh_new, dh_carry = seq.split_upstream(t, dh)
                dc_new, dc_carry = seq.split_upstream(t, dc)
                z, dz, tc = gates[t], d_gates[t], cell_act[t]
                i, f, g, o = z[:, :u], z[:, u:2 * u], z[:, 2 * u:3 * u], z[:, 3 * u:]
                d_cell = dh_new * o
                _scale_by_derivative(activation, d_cell, tc)
                d_cell += dc_new
                numpy_like.multiply(dh_new, tc, out=dz[:, 3 * u:])
                _scale_by_derivative(recurrent_activation, dz[:, 3 * u:], o)
                numpy_like.multiply(d_cell, g, out=dz[:, :u])
                _scale_by_derivative(recurrent_activation, dz[:, :u], i)
                numpy_like.multiply(d_cell, cs[t], out=dz[:, u:2 * u])
                _scale_by_derivative(recurrent_activation, dz[:, u:2 * u], f)
                numpy_like.multiply(d_cell, i, out=dz[:, 2 * u:3 * u])
                _scale_by_derivative(activation, dz[:, 2 * u:3 * u], g)
                dc = d_cell * f
                dh = dz @ u_t
                if seq.dropout is not None:
                    dh *= seq.dropout
                if dh_carry is not None:
                    dh += dh_carry
                    dc += dc_carry
        grad_x, grad_w = seq.input_gradients(needs, d_gates)
        flat = d_gates.reshape(-1, 4 * u)
        grad_u = seq.dropped_history(hs).T @ flat if needs[2] else None
        grad_b = flat.sum(axis=0) if len(needs) > 3 and needs[3] else None
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
    (sequence (B, T, u), final_h (B, u)).
    """
    check_activation(activation)
    check_activation(recurrent_activation, "recurrent_activation")
    u_data = xp().ascontiguousarray(data_of(recurrent_kernel))   # BLAS fast path
    u = u_data.shape[0]
    b = None if bias is None else data_of(bias)
    if b is not None and reset_after and b.shape != (2, 3 * u):
        raise ValueError(f"gru(reset_after=True) needs a bias of shape (2, {3 * u}), "
                         f"got {tuple(b.shape)}")
    input_bias = b[0] if b is not None and reset_after else b
    recurrent_bias = b[1] if b is not None and reset_after else None
    seq = _Sequence(inputs, kernel, input_bias, u, mask, go_backwards, recurrent_dropout_mask)
    numpy_like, steps, batch = seq.xp, seq.steps, seq.batch
    packed = numpy_like.empty((steps + 1, batch, u), dtype=seq.dtype)
    packed[0] = seq.initial(initial_h)
    gates = numpy_like.empty((steps, batch, 3 * u), dtype=seq.dtype)     # z, r, h~
    # reset_after: the recurrent part of the candidate; else r * h (the candidate GEMM input)
    memory = numpy_like.empty((steps, batch, u), dtype=seq.dtype)
    u_zr, u_h = u_data[:, :2 * u], u_data[:, 2 * u:]
    with _serial_blas(batch, u, 3 * u):
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
        with _serial_blas(batch, u, 3 * u):
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
    seq = _Sequence(inputs, kernel, None if bias is None else data_of(bias), u, mask,
                    go_backwards, recurrent_dropout_mask)
    numpy_like, steps, batch = seq.xp, seq.steps, seq.batch
    packed = numpy_like.empty((steps + 1, batch, u), dtype=seq.dtype)
    packed[0] = seq.initial(initial_h)
    activated = numpy_like.empty((steps, batch, u), dtype=seq.dtype)
    with _serial_blas(batch, u, u):
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
        with _serial_blas(batch, u, u):
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

"""Activations on raw arrays of the active array module, in place where they can be: the
shared kernels of the fused ops (``dense`` and ``conv`` in :mod:`.nn` / :mod:`.conv`, the
fused recurrent ops in :mod:`.recurrent`, the sigmoid cross-entropy in :mod:`.losses`).

They take and return engine arrays (never Tensors) and record nothing; the ops that call
them own the autodiff. ``activate`` / ``derivative`` cover every activation a fused op
accepts (``IN_PLACE_ACTIVATIONS``); the derivatives are written in terms of the
activation's output ``y = act(x)``, which is what the ops keep for their backward.
"""

from .. import state

IN_PLACE_ACTIVATIONS = ("tanh", "sigmoid", "relu", "hard_sigmoid", "linear")
FUSED_ACTIVATIONS = ("linear", "relu", "sigmoid", "tanh")   # what dense() and conv() fuse
#: The smallest dense output the compiled epilogue takes: below it the arrays stay in cache,
#: where NumPy's vectorized passes are as fast and its calls cheaper (W1's and W4's steps
#: ran 5-20% slower through the kernel).
FUSED_EPILOGUE_MIN_SIZE = 1 << 17


def sigmoid(a, out=None):
    """``sigmoid(a) = (1 + tanh(a / 2)) / 2`` (stable for any ``a``), into ``out`` (which
    may be ``a``) or a new array (also for a 0-d ``a``, where a ufunc returns a scalar)."""
    numpy_like = state.backend().xp
    out = numpy_like.asarray(numpy_like.multiply(a, 0.5, out=out))
    numpy_like.tanh(out, out=out)
    out += 1
    out *= 0.5
    return out


def activate(name, a, out=None):
    """Apply activation ``name`` (one of ``IN_PLACE_ACTIVATIONS``) to ``a`` in place, or
    into ``out`` when given (either may be a strided view); returns the result."""
    numpy_like = state.backend().xp
    if out is not None:
        if name == "tanh":
            return numpy_like.tanh(a, out=out)
        out[...] = a
        a = out
    if name == "tanh":
        numpy_like.tanh(a, out=a)
    elif name == "sigmoid":
        sigmoid(a, out=a)
    elif name == "relu":
        numpy_like.maximum(a, 0, out=a)
    elif name == "hard_sigmoid":
        a *= 1.0 / 6.0
        a += 0.5
        numpy_like.clip(a, 0, 1, out=a)
    elif name != "linear":
        raise ValueError(f"fused recurrent ops support the activations "
                         f"{IN_PLACE_ACTIVATIONS}, got {name!r}")
    return a


def derivative(name, y, out):
    """Write ``act'(x)`` into ``out``, in terms of ``y = act(x)``; returns ``out``."""
    numpy_like = state.backend().xp
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


def scale_by_derivative(name, g, y):
    """``g *= act'(x)`` in place, with the derivative written in terms of ``y = act(x)``."""
    if name != "linear":
        g *= derivative(name, y, state.backend().xp.empty_like(g))
    return g


def check_fused_activation(op_name, activation):
    """``activation`` (None means linear) if the fused ops support it, else ValueError."""
    activation = activation or "linear"
    if activation not in FUSED_ACTIVATIONS:
        raise ValueError(f"{op_name}() fuses {FUSED_ACTIVATIONS}, got activation={activation!r}")
    return activation


def add_bias_and_activate(out, bias, activation):
    """``activation(out + bias)`` computed in place on ``out`` (a fresh op result);
    returns ``out``."""
    if bias is not None:
        out += bias
    return out if activation == "linear" else activate(activation, out)


def saved_output(out, activation):
    """What :func:`activation_backward` needs of a fused activation's output ``out``: for
    ReLU only its sign, as a boolean array (a quarter of float32's bytes, so the float
    output can be freed once the next layer has run); nothing for a linear one; else
    ``out`` itself."""
    if activation == "relu":
        return out > 0
    return None if activation == "linear" else out


def activation_backward(g, saved, activation):
    """Gradient before a fused activation, from :func:`saved_output` of its output (never
    modifies ``g``)."""
    if activation == "relu":
        return g * saved
    if activation == "sigmoid":
        return g * saved * (1 - saved)
    if activation == "tanh":
        return g * (1 - saved * saved)
    return g


def dense_epilogue(backend, out, bias, activation):
    """``activation(out + bias)`` in place on a fresh GEMM result ``out`` (..., units) of
    ``backend`` and what :func:`dense_epilogue_backward` needs of it: ``(out, kept)`` with
    ``kept`` as :func:`saved_output` gives it. A linear or ReLU activation of at least
    :data:`FUSED_EPILOGUE_MIN_SIZE` values on an engine with compiled kernels
    (:meth:`lamina.backends.Backend.dense_epilogue_kernels`) is one pass per row block,
    the blocks on the engine's threads."""
    kernels = None
    if out.size >= FUSED_EPILOGUE_MIN_SIZE and activation in ("linear", "relu") \
            and out.flags.c_contiguous:
        kernels = backend.dense_epilogue_kernels(out.dtype)
    if kernels is None:
        out = add_bias_and_activate(out, bias, activation)
        return out, saved_output(out, activation)
    if bias is None and activation == "linear":
        return out, None
    relu = activation == "relu"
    rows = out.reshape(-1, out.shape[-1])
    kept = backend.xp.empty(rows.shape, bool) if relu else rows[:1, :1] > 0
    bias_in = rows[0] if bias is None else backend.xp.ascontiguousarray(bias, out.dtype)

    def work(block):
        kernels[0](rows[block], bias_in, bias is not None, relu, kept[block] if relu else kept)

    backend.run_blocks(work, backend.batch_blocks(rows.shape[0], rows.size))
    return out, (kept.reshape(out.shape) if relu else None)


def dense_epilogue_backward(backend, g, kept, activation, needs_bias):
    """The gradient before :func:`dense_epilogue`'s activation as 2-D (rows, units), and
    the bias gradient (its column sums) when ``needs_bias``, else None; ``g`` unchanged."""
    kernels = None
    if g.size >= FUSED_EPILOGUE_MIN_SIZE and activation in ("linear", "relu"):
        kernels = backend.dense_epilogue_kernels(g.dtype)
    if kernels is None:
        g2 = activation_backward(g, kept, activation).reshape(-1, g.shape[-1])
        return g2, (g2.sum(axis=0) if needs_bias else None)
    relu = activation == "relu"
    numpy_like = backend.xp
    rows = numpy_like.ascontiguousarray(g).reshape(-1, g.shape[-1])
    if not (relu or needs_bias):
        return rows, None
    grad_out = numpy_like.empty_like(rows) if relu else rows
    kept_rows = kept.reshape(rows.shape) if relu else rows[:1, :1] > 0

    def work(block, total):
        kernels[1](rows[block], kept_rows[block] if relu else kept_rows, relu,
                   grad_out[block], total, needs_bias)

    total = backend.run_block_sums(work, backend.batch_blocks(rows.shape[0], rows.size),
                                   rows.shape[1:], rows.dtype)
    return grad_out, (total if needs_bias else None)

"""Control flow with ``keras.ops``' signatures: ``cond``, ``switch``, ``fori_loop``,
``while_loop``, ``scan``, ``associative_scan``, ``map``, ``vectorized_map``, ``vectorize``,
plus ``stop_gradient`` and ``custom_gradient``.

lamina is define-by-run, so these run eagerly in Python: gradients flow through every
iteration as through any other op sequence. ``vectorized_map`` maps the function over the
first axis (the NumPy engine has no vectorizing compiler), stacking the results.
"""

import functools
import re

import numpy as np

from ..autodiff import Tensor, as_engine_array, no_grad, record
from .core import data_of
from .shape import broadcast_to, reshape, stack, unstack


# ------------------------------------------------------------------ nested structures
def _flatten(tree):
    """The leaves of nested lists/tuples/dicts, depth first (dicts by sorted key)."""
    if isinstance(tree, (list, tuple)):
        return [leaf for item in tree for leaf in _flatten(item)]
    if isinstance(tree, dict):
        return [leaf for key in sorted(tree) for leaf in _flatten(tree[key])]
    return [tree]


def _pack(structure, leaves):
    """``leaves`` (an iterator) arranged like ``structure``."""
    if isinstance(structure, (list, tuple)):
        return type(structure)(_pack(item, leaves) for item in structure)
    if isinstance(structure, dict):
        return {key: _pack(structure[key], leaves) for key in sorted(structure)}
    return next(leaves)


def _as_tensor(value):
    return value if isinstance(value, Tensor) else Tensor(value)


# ------------------------------------------------------------------ branching
def cond(pred, true_fn, false_fn):
    """``true_fn()`` if ``pred`` is true, else ``false_fn()``."""
    return true_fn() if bool(pred) else false_fn()


def switch(index, branches, *operands):
    """``branches[index](*operands)``, with ``index`` clipped into the valid range."""
    if not branches:
        raise ValueError("switch: branches must not be empty")
    chosen = min(max(int(index), 0), len(branches) - 1)
    return branches[chosen](*operands)


# ------------------------------------------------------------------ loops
def fori_loop(lower, upper, body_fun, init_val):
    """``val = body_fun(i, val)`` for ``i`` in ``range(lower, upper)``; returns ``val``."""
    value = init_val
    for i in range(int(lower), int(upper)):
        value = body_fun(i, value)
    return value


def while_loop(cond, body, loop_vars, maximum_iterations=None):
    """``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)`` (at most
    ``maximum_iterations`` times). A tuple/list of loop variables is unpacked into
    ``cond`` and ``body`` and returned as a tuple; a single one is passed and returned
    as it is."""
    is_sequence = isinstance(loop_vars, (tuple, list))
    values = tuple(loop_vars) if is_sequence else (loop_vars,)
    done = 0
    while (maximum_iterations is None or done < maximum_iterations) and bool(cond(*values)):
        values = body(*values)
        values = tuple(values) if isinstance(values, (tuple, list)) else (values,)
        done += 1
    return values if is_sequence else values[0]


def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """Loop ``carry, y = f(carry, x)`` over the leading axis of ``xs`` (nested structures
    allowed) or ``length`` times with ``x=None``; returns ``(carry, stacked ys)``. As
    ``jax.lax.scan``; ``unroll`` is accepted and has no effect eagerly."""
    if not callable(f):
        raise TypeError(f"scan: f must be callable, got {f!r}")
    if xs is None and length is None:
        raise ValueError("scan: give xs to scan over, or length")
    leaves = [] if xs is None else [_as_tensor(leaf) for leaf in _flatten(xs)]
    steps = int(length) if length is not None else leaves[0].shape[0]
    slices = [unstack(leaf) for leaf in leaves]
    carry, ys = init, []
    order = range(steps - 1, -1, -1) if reverse else range(steps)
    for i in order:
        x = None if xs is None else _pack(xs, iter([s[i] for s in slices]))
        carry, y = f(carry, x)
        ys.append(y)
    if reverse:
        ys.reverse()
    if not ys or ys[0] is None:
        return carry, None
    flat = [_flatten(y) for y in ys]
    stacked = [stack([row[k] for row in flat]) for k in range(len(flat[0]))]
    return carry, _pack(ys[0], iter(stacked))


def associative_scan(f, elems, reverse=False, axis=0):
    """Inclusive prefix combination ``out[i] = f(out[i - 1], elems[i])`` along ``axis``
    (nested structures allowed), as ``jax.lax.associative_scan``; computed sequentially."""
    leaves = [_as_tensor(leaf) for leaf in _flatten(elems)]
    slices = [unstack(leaf, axis=axis) for leaf in leaves]
    count = len(slices[0])
    order = list(range(count - 1, -1, -1)) if reverse else list(range(count))
    results = {}
    running = None
    for i in order:
        current = _pack(elems, iter([s[i] for s in slices]))
        running = current if running is None else f(running, current)
        results[i] = _flatten(running)
    stacked = [stack([results[i][k] for i in range(count)], axis=axis)
               for k in range(len(leaves))]
    return _pack(elems, iter(stacked))


def map(f, xs):  # noqa: A001  (Keras' name)
    """``f`` applied to each slice of ``xs`` along its leading axis, results stacked."""
    return scan(lambda carry, x: ((), f(x)), (), xs)[1]


def vectorized_map(function, elements):
    """``function`` applied to each slice along the leading axis of ``elements`` (a
    tensor, or a list/tuple of tensors: the function then gets a list of slices),
    results stacked."""
    if isinstance(elements, (list, tuple)):
        columns = [unstack(_as_tensor(e)) for e in elements]
        return stack([function([c[i] for c in columns]) for i in range(len(columns[0]))])
    return stack([function(x) for x in unstack(_as_tensor(elements))])


_CORE = re.compile(r"\(([\w\s,]*)\)")


def _parse_signature(signature):
    """``"(m,n),(n)->(m)"`` as ([("m", "n"), ("n",)], [("m",)])."""
    if signature.count("->") != 1:
        raise ValueError(f"vectorize: signature must look like '(m,n),(n)->(m)', got "
                         f"{signature!r}")
    sides = signature.replace(" ", "").split("->")
    inputs, outputs = ([tuple(d for d in group.split(",") if d)
                        for group in _CORE.findall(side)] for side in sides)
    return inputs, outputs


def vectorize(pyfunc, *, excluded=None, signature=None):
    """``pyfunc`` made elementwise, as ``numpy.vectorize`` / ``keras.ops.vectorize``:
    the returned function broadcasts its tensor arguments over their leading (loop)
    dimensions and calls ``pyfunc`` once per loop index on the core slices (scalars, or
    the core dimensions of the gufunc ``signature`` such as ``"(m,n),(n)->(m)"``),
    stacking the results (a tuple of outputs gives a tuple). Keyword arguments and
    the positions in ``excluded`` are passed through unchanged. lamina has no vectorizing compiler: the
    calls run in a Python loop; gradients flow through them.

    Example:
        >>> ops.vectorize(lambda a, b: a + b)([1.0, 2.0, 3.0], 2.0)   # [3, 4, 5]
    """
    if not callable(pyfunc):
        raise ValueError(f"vectorize needs a callable pyfunc, got pyfunc={pyfunc!r}")
    excluded = set(excluded or ())
    cores = _parse_signature(signature) if signature is not None else None

    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        kept = [i for i in range(len(args)) if i not in excluded]
        tensors = [_as_tensor(args[i]) for i in kept]
        core_dims = cores[0] if cores else [()] * len(tensors)
        if len(core_dims) != len(tensors):
            raise ValueError(f"vectorize: signature {signature!r} has {len(core_dims)} "
                             f"inputs, got {len(tensors)} vectorized arguments")
        loops = []
        for tensor, core in zip(tensors, core_dims):
            if tensor.ndim < len(core):
                raise ValueError(f"vectorize: an argument of shape {tensor.shape} has "
                                 f"fewer dimensions than its core {core}")
            loops.append(tensor.shape[:tensor.ndim - len(core)])
        loop = tuple(np.broadcast_shapes(*loops)) if loops else ()
        count = int(np.prod(loop, dtype=np.int64))
        columns = [unstack(reshape(broadcast_to(t, loop + t.shape[len(s):]),
                                   (count,) + t.shape[len(s):])) if count else []
                   for t, s in zip(tensors, loops)]
        results = []
        for index in range(count):
            call_args = list(args)
            for position, column in zip(kept, columns):
                call_args[position] = column[index]
            results.append(pyfunc(*call_args, **kwargs))
        if not results:
            raise ValueError("vectorize: the broadcast loop shape is empty (size 0)")
        if isinstance(results[0], tuple):
            return tuple(reshape(stack([_as_tensor(r[k]) for r in results]),
                                 loop + tuple(_as_tensor(results[0][k]).shape))
                         for k in range(len(results[0])))
        first = _as_tensor(results[0])
        return reshape(stack([_as_tensor(r) for r in results]), loop + tuple(first.shape))

    return wrapped


# ------------------------------------------------------------------ gradients
def stop_gradient(variable):
    """The values of ``variable`` cut from the graph: no gradient flows through."""
    return Tensor(data_of(variable)) if not isinstance(variable, Tensor) else variable.detach()


def custom_gradient(f):
    """Decorator: ``f(*args)`` returns ``(output, grad_fn)``; the decorated function
    returns ``output`` and, in backward, ``grad_fn(upstream)`` supplies the gradients of
    the tensor arguments (one per argument, as a tensor or a tuple), as in Keras.

    Example:
        >>> @ops.custom_gradient
        ... def clip_gradient(x):
        ...     def grad(upstream):
        ...         return ops.clip(upstream, -1.0, 1.0)
        ...     return x * 1.0, grad
    """

    @functools.wraps(f)
    def wrapper(*args):
        with no_grad():
            output, grad_fn = f(*args)

        def backward(g, needs):
            with no_grad():
                grads = grad_fn(Tensor(g))
            grads = grads if isinstance(grads, (tuple, list)) else (grads,)
            return tuple(None if value is None or not need else
                         as_engine_array(value).astype(g.dtype, copy=False)
                         for value, need in zip(grads, needs))

        return record(data_of(output), tuple(args), backward, f.__name__)

    return wrapper

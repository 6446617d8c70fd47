"""Define-by-run reverse-mode automatic differentiation.

A :class:`Tensor` wraps an engine array. Every differentiable op that receives at least one
tensor needing a gradient records a :class:`Node` holding its inputs and a vector-Jacobian
function; :func:`grad` walks the recorded graph once in reverse topological order, sums the
gradients of tensors used several times, and frees the graph.

Example:
    >>> import numpy as np, lamina
    >>> x = lamina.Variable(np.ones((2, 3), "float32"))
    >>> (g,) = lamina.grad(lamina.ops.sum(lamina.ops.relu(x) * 3.0), [x])
    >>> g.numpy()[0, 0]
    3.0
"""

import functools
import itertools
import operator
import threading

import numpy as np

from . import state
from .name_scope import scoped_path



class _Recording(threading.local):
    """Whether ops record a graph, per thread: ``no_grad`` in one thread (``predict`` on
    a web server's request thread) leaves recording on in the others (a ``fit``)."""

    on = True


_recording = _Recording()
# The threads inside no_grad now. While none is, every thread records and the hot path
# (``record``) reads this count instead of the slower thread-local flag.
_threads_not_recording = state.OpenScopes()


def is_recording():
    """True unless the calling thread is inside :func:`no_grad`."""
    return not _threads_not_recording.count or _recording.on


class no_grad:
    """Context manager that turns graph recording off (inference, optimizer updates) in
    the calling thread; other threads keep recording. Also usable as a decorator.

    Example:
        >>> with lamina.no_grad():
        ...     y = model(x)   # no graph is kept
    """

    # A class, not a generator context manager: the training step enters one per batch.
    __slots__ = ("_counted",)

    def __enter__(self):
        self._counted = _recording.on   # nested: this thread is counted already
        if self._counted:
            _threads_not_recording.opened()
            _recording.on = False

    def __exit__(self, *exc_info):
        if self._counted:
            _recording.on = True
            _threads_not_recording.closed()
        return False

    def __call__(self, function):
        @functools.wraps(function)
        def without_graph(*args, **kwargs):
            with no_grad():
                return function(*args, **kwargs)
        return without_graph


class Node:
    """One recorded op application: where its inputs' gradients go, and its
    vector-Jacobian function.

    ``inputs`` holds, per op input, the :class:`Node` that made it (a recorded tensor), the
    Tensor itself (a leaf: a Variable, a Tensor made with ``requires_grad=True``) or None
    (no gradient needed). It never holds a recorded tensor, so a tensor's array lives only
    as long as the model code or a ``backward`` that needs it keeps it (as PyTorch saves
    only what a backward uses): a ReLU convolution's output goes once the next layer ran.
    ``backward(upstream, needs)`` receives the gradient of the op's output and ``needs``
    (one boolean per input, fixed when the op ran: does that input need a gradient) and
    returns one gradient array (or ``None``) per input, already reduced to its shape.
    """

    __slots__ = ("inputs", "backward", "name", "needs", "order")

    def __init__(self, inputs, backward, name, needs):
        self.inputs = inputs
        self.backward = backward
        self.name = name
        self.needs = needs
        self.order = next(_creation_order)   # see _topological_order


# Nodes are numbered as they are made; an op's inputs always exist before it runs.
_creation_order = itertools.count()
_CREATION_ORDER = operator.attrgetter("order")


class Tensor:
    """An engine array that can take part in automatic differentiation.

    Args:
        value: array-like (NumPy array, engine array, Python number or nested list).
            Python data is converted to ``floatx()``; arrays keep their dtype.
        requires_grad: record operations on this tensor so :func:`grad` can return
            gradients with respect to it.
        dtype: optional dtype to cast to.

    Python operators (``+ - * / @ ** -x x[idx]``) map to the ops in ``lamina.ops``;
    ``np.asarray(t)`` and ``t.numpy()`` give the values as a NumPy array.
    """

    # ``_keras_mask``: the mask a masking layer attached (Keras' attribute name; unset
    # slots read as absent, so ops never pay for it).
    __slots__ = ("data", "requires_grad", "node", "_keras_mask", "__weakref__")
    __array_priority__ = 1000
    # NumPy defers binary operators to us (``w * t`` calls ``t.__rmul__``).
    __array_ufunc__ = None

    def __init__(self, value, requires_grad=False, dtype=None):
        self.data = as_engine_array(value, dtype)
        self.requires_grad = bool(requires_grad)
        self.node = None

    @property
    def shape(self):
        return tuple(self.data.shape)

    @property
    def dtype(self):
        return self.data.dtype

    @property
    def ndim(self):
        return self.data.ndim

    def __len__(self):
        return self.data.shape[0]

    def numpy(self):
        """The values as a NumPy array (copied off the device for GPU engines)."""
        return state.backend().to_numpy(self.data)

    def __array__(self, dtype=None, copy=None):
        values = self.numpy()
        return values if dtype is None else values.astype(dtype, copy=False)

    def item(self):
        return self.numpy().item()

    def __float__(self):
        # any one-element tensor, (1, 1) included, as Keras' backends convert it
        return float(self.numpy().item())

    def __int__(self):
        return int(self.numpy().item())

    def __bool__(self):
        return bool(self.numpy())

    def __repr__(self):
        grad_note = ", requires_grad=True" if self.requires_grad else ""
        return f"Tensor({self.numpy()!r}{grad_note})"

    def detach(self):
        """A tensor sharing the values but cut from the graph."""
        return Tensor(self.data)

    # Operators are attached by ``lamina.backends.ops`` (which imports this module).


class Variable(Tensor):
    """Trainable (or non-trainable) state owned by a layer or an optimizer, as Keras 3's
    ``keras.Variable``.

    Args:
        initializer: the initial value (array-like) or a callable
            ``initializer(shape, dtype=dtype)`` (an Initializer object) used with ``shape``.
        shape: the shape, needed when ``initializer`` is a callable.
        dtype: dtype; defaults to the value's floating dtype or ``floatx()``.
        trainable: whether optimizers update it and gradients flow to it.
        autocast: read in the compute dtype inside a mixed-precision layer (Keras').
        aggregation: Keras' multi-replica annotation: ``"none"``, ``"mean"``, ``"sum"`` or
            ``"only_first_replica"``.
        name: a name such as ``"kernel"``; layers give their weights Keras' names.

    A Variable is a Tensor: arithmetic (``v + 1``, ``v @ w``), ``lamina.ops`` and
    ``np.asarray(v)`` use its current value and gradients flow to it.

    Example:
        >>> v = lamina.Variable(np.zeros(3, "float32"), name="bias")
        >>> v.assign_add(np.ones(3, "float32"))
    """

    __slots__ = ("name", "_trainable", "path", "regularizer", "constraint", "autocast",
                 "aggregation")

    def __init__(self, initializer, shape=None, dtype=None, trainable=True, autocast=True,
                 aggregation="none", name=None):
        if aggregation is None:
            aggregation = "none"
        if aggregation not in _AGGREGATIONS:
            raise ValueError(f"Variable '{name}': aggregation must be one of {_AGGREGATIONS}, "
                             f"got {aggregation!r}")
        if callable(initializer) and not isinstance(initializer, Tensor):
            if shape is None:
                raise ValueError(f"Variable '{name}': an initializer needs a shape")
            initializer = initializer(tuple(shape), dtype=dtype or state.floatx())
        super().__init__(initializer, requires_grad=trainable, dtype=dtype)
        if shape is not None and tuple(shape) != tuple(self.data.shape):
            raise ValueError(f"Variable '{name}': initial value has shape "
                             f"{tuple(self.data.shape)}, expected shape {tuple(shape)}")
        # A variable owns its memory: updates in place must never reach the caller's array.
        self.data = self.data.copy()
        self.name = name or "variable"
        self.path = scoped_path(self.name)     # under the open name_scopes, as in Keras
        self._trainable = bool(trainable)
        self.regularizer = None
        self.constraint = None
        self.autocast = bool(autocast)
        self.aggregation = aggregation

    @property
    def trainable(self):
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        self._trainable = bool(value)
        self.requires_grad = self._trainable

    @property
    def value(self):
        """The current value (Keras 3's ``variable.value``): the variable itself, a Tensor."""
        return self

    def assign(self, value):
        """Replace the values in place; the shape must stay the same. Returns the variable."""
        new = as_engine_array(value, self.data.dtype)
        if tuple(new.shape) != tuple(self.data.shape):
            raise ValueError(
                f"Variable '{self.name}' has shape {tuple(self.data.shape)}, "
                f"cannot assign a value of shape {tuple(new.shape)}"
            )
        self.data[...] = new
        return self

    def assign_add(self, value):
        """``variable += value`` in place (Keras 3's ``assign_add``)."""
        return self.assign(self.data + as_engine_array(value, self.data.dtype))

    def assign_sub(self, value):
        """``variable -= value`` in place (Keras 3's ``assign_sub``)."""
        return self.assign(self.data - as_engine_array(value, self.data.dtype))

    def __repr__(self):
        return (f"<Variable path={self.path}, shape={self.shape}, dtype={self.dtype}, "
                f"value={self.numpy()}>")


_AGGREGATIONS = ("none", "mean", "sum", "only_first_replica")


def as_engine_array(value, dtype=None):
    """Convert ``value`` to an array of the current engine.

    Python numbers and lists become ``floatx()`` arrays unless they are integer-only
    sequences given with an explicit integer dtype; arrays and NumPy scalars (such as the
    result of a full reduction) keep their dtype.
    """
    backend = state.backend()
    if isinstance(value, Tensor):
        value = value.data
    engine_array = backend.is_array(value)
    if engine_array or isinstance(value, (np.ndarray, np.generic)):
        if dtype is None and value.dtype.kind not in "fiub":
            raise TypeError(
                f"expected a numeric array, got an array of dtype {value.dtype}"
            )
        if engine_array:
            return value if dtype is None or value.dtype == dtype else value.astype(dtype)
        return backend.asarray(value, dtype)
    if dtype is None:
        dtype = state.floatx()
    try:
        return backend.asarray(np.asarray(value, dtype=dtype))
    except (TypeError, ValueError) as error:
        raise TypeError(f"expected numeric data, got {type(value).__name__}: {error}")


def record(output, inputs, backward, name):
    """Wrap an op's output array in a Tensor and record the node if any input needs it.

    Args:
        output: the engine array the op computed.
        inputs: the op's inputs (Tensors or raw arrays; only Tensors can need grads).
        backward: ``backward(upstream, needs) -> tuple of arrays or None``.
        name: op name, for error messages.
    """
    result = Tensor.__new__(Tensor)
    result.data = output
    result.node = None
    result.requires_grad = False
    if not _threads_not_recording.count or _recording.on:
        parents = [item.node or item if getattr(item, "requires_grad", False) else None
                   for item in inputs]
        if parents.count(None) < len(parents):
            result.requires_grad = True
            result.node = Node(tuple(parents), backward, name,
                               tuple(map(operator.is_not, parents, _NONES)))
    return result


_NONES = itertools.repeat(None)


def wrap(array):
    """A Tensor around an engine array, with no conversion or checks (internal fast path)."""
    result = Tensor.__new__(Tensor)
    result.data = array
    result.node = None
    result.requires_grad = False
    return result


class FreedGraphError(RuntimeError):
    """Raised when :func:`grad` walks a graph a previous call already freed."""


def _topological_order(root):
    """The nodes reachable from the node ``root``, each after every node that consumes its
    output: an op runs after its inputs exist, so that is the reverse of the order the
    nodes were made in."""
    found = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in found:
            continue
        if node.inputs is None:
            raise FreedGraphError(
                f"the graph through op '{node.name}' was already freed by an earlier "
                "grad() call; recompute the forward pass (or pass retain_graph=True)"
            )
        found[id(node)] = node
        for parent in node.inputs:
            if type(parent) is Node and id(parent) not in found:
                stack.append(parent)
    return sorted(found.values(), key=_CREATION_ORDER, reverse=True)


def _graph_key(tensor):
    """Where the graph keeps ``tensor``'s gradient: by its node, or by itself (a leaf)."""
    node = tensor.node
    return id(tensor) if node is None else id(node)


class _Completion:
    """``on_gradient(position, gradient)`` for each source, called as soon as every node
    consuming the source has been walked (its gradient is final)."""

    def __init__(self, order, sources, on_gradient):
        self.positions = {}
        for position, source in enumerate(sources):
            self.positions.setdefault(_graph_key(source), []).append(position)
        self.left = dict.fromkeys(self.positions, 0)
        for node in order:
            for parent in node.inputs:
                if parent is not None and id(parent) in self.left:
                    self.left[id(parent)] += 1
        self.on_gradient = on_gradient

    def walked(self, node, gradients):
        for parent in node.inputs:
            key = id(parent)
            if parent is not None and key in self.left:
                self.left[key] -= 1
                if not self.left[key] and key in gradients:
                    for position in self.positions[key]:
                        self.on_gradient(position, gradients[key])


def grad(loss, sources, output_gradient=None, retain_graph=False, on_gradient=None):
    """Gradients of ``loss`` with respect to each of ``sources``.

    Args:
        loss: a Tensor (usually a scalar). A non-scalar loss needs ``output_gradient``
            or is treated as ``sum(loss)``.
        sources: a list of Variables or Tensors created with ``requires_grad=True``.
        output_gradient: optional upstream gradient with the shape of ``loss``.
        retain_graph: keep the graph so that ``grad`` can walk it again.
        on_gradient: optional ``on_gradient(position, gradient)``, called during the
            backward pass with each source's gradient (an engine array, to read only)
            as soon as it is final -- to start communicating it while the rest of the
            backward pass runs (data-parallel training). Not called for a source the
            loss does not depend on.

    Returns:
        A list of Tensors, one per source, each with the source's shape (zeros where the
        loss does not depend on the source).
    """
    backend = state.backend()
    single = isinstance(sources, Tensor)
    sources = [sources] if single else list(sources)
    if not all(map(isinstance, sources, itertools.repeat(Tensor))):
        position, source = next((i, s) for i, s in enumerate(sources)
                                if not isinstance(s, Tensor))
        raise TypeError(
            f"grad() sources must be Variables or Tensors, got "
            f"{type(source).__name__} at position {position}"
        )
    if not isinstance(loss, Tensor):
        raise TypeError(f"grad() needs a Tensor loss, got {type(loss).__name__}")
    if output_gradient is None:
        seed = backend.xp.ones(loss.data.shape, dtype=loss.data.dtype)
    else:
        seed = as_engine_array(output_gradient, loss.data.dtype)
    gradients = {_graph_key(loss): seed}
    order = [] if loss.node is None else _topological_order(loss.node)
    keys = list(map(_graph_key, sources))
    source_keys = set(keys)
    completion = None if on_gradient is None else _Completion(order, sources, on_gradient)
    for node in order:
        # Intermediate gradients are dropped once used, except those asked for.
        key = id(node)
        upstream = gradients.get(key) if key in source_keys else gradients.pop(key, None)
        if upstream is None:
            if completion is not None:
                completion.walked(node, gradients)
            continue
        input_grads = node.backward(upstream, node.needs)
        for parent, value in zip(node.inputs, input_grads):
            if parent is None or value is None:
                continue
            key = id(parent)
            existing = gradients.get(key)
            if existing is None:
                gradients[key] = value
            else:
                gradients[key] = existing + value
        if completion is not None:
            completion.walked(node, gradients)
        if not retain_graph:
            node.inputs = None
            node.backward = None
    results = []
    handed_out = set()
    for source, key in zip(sources, keys):
        value = gradients.get(key)
        data = source.data
        if value is None:
            value = backend.xp.zeros(data.shape, dtype=data.dtype)
        elif value.base is not None or id(value) in handed_out \
                or not getattr(value.flags, "writeable", True):
            # Broadcast views and arrays shared between sources: give each caller its own.
            value = value.copy()
        if value.dtype != data.dtype and data.dtype.kind == "f":
            value = value.astype(data.dtype)   # a variable read autocast (float16)
        handed_out.add(id(value))
        results.append(wrap(value))
    return results[0] if single else results

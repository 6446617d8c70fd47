"""The ``Layer`` base class: the Keras contract.

``__init__`` stores config, ``build(input_shape)`` makes weights with ``add_weight``,
``call(inputs, training=None, mask=None)`` computes, ``get_config`` round-trips every
constructor argument. ``__call__`` builds on first use, checks the input once against
``input_spec``, records a node when called on symbolic tensors (functional API) and
otherwise runs ``call`` directly.
"""

import contextlib
import contextvars
import inspect
import math
import threading
import warnings

import numpy as np

from ..backends import autodiff, no_grad, state
from ..backends import autocast as autocast_module
from ..backends.autodiff import Tensor, Variable
from ..backends.registry import Registry
from .options import constraints as constraints_module
from .options import initializers as initializers_module
from .options import regularizers as regularizers_module
from .legacy_keywords import INPUT_SHAPE_WARNING, accept_legacy_shape_keywords
from .dtype_policy_mixin import DTypePolicyMixin
from .masks import attach_masks, attach_symbolic_masks, attached_mask, fill_argument_masks, \
    warn_mask_dropped
from .naming import snake_case, unique_name
from .symbolic import Node, SymbolicTensor, flat_shapes, flatten, is_shape, is_symbolic, \
    map_structure, merge_traced_shapes, placeholders, rebuild_shapes

LAYERS = Registry("layer")




class _OutermostCall(threading.local):
    """The layer whose ``__call__`` started the calling thread's forward pass (None
    between passes): each thread's passes start and collect penalties on their own."""

    layer = None


_outermost_call = _OutermostCall()
# add_loss calls made in this process so far: while there were none, a forward pass has no
# penalties of earlier passes to drop and skips walking the layers for them.
_added_losses = [0]
_BY_KEYWORD = object()   # __call__'s default: the first argument came by keyword

_weight_budget = contextvars.ContextVar("lamina_weight_budget", default=None)


class WeightBudgetError(ValueError):
    """``add_weight`` inside :func:`weight_budget` would create more values than allowed."""


@contextlib.contextmanager
def weight_budget(values, reason):
    """While the block runs, the weights created hold at most ``values`` values in total:
    ``add_weight`` raises :class:`WeightBudgetError` (naming the layer, the weight and
    ``reason``) before allocating one that would go over. Model loading uses it so that a
    stored config cannot allocate far more than the file's weights."""
    token = _weight_budget.set([int(values), reason])
    try:
        yield
    finally:
        _weight_budget.reset(token)


def _charge_weight_budget(layer, name, shape):
    budget = _weight_budget.get()
    if budget is None:
        return
    count = math.prod(shape)
    if count > budget[0]:
        raise WeightBudgetError(f"Layer '{layer.name}' ({type(layer).__name__}) would create "
                                f"weight '{name}' of shape {shape} ({count} values): "
                                f"{budget[1]}")
    budget[0] -= count


class InputSpec:
    """What a layer accepts: ``ndim`` (exact rank), ``min_ndim``, ``axes`` ({axis: size}).

    Checked once per call in ``Layer.__call__`` so every layer reports bad input the same way.
    """

    __slots__ = ("ndim", "min_ndim", "axes")

    def __init__(self, ndim=None, min_ndim=None, axes=None):
        self.ndim, self.min_ndim, self.axes = ndim, min_ndim, dict(axes or {})


class Layer(DTypePolicyMixin):
    """Base class of every layer.

    Args:
        name: unique name; defaults to the snake-cased class name with a counter.
        trainable: whether the layer's weights are trained.
        dtype: a dtype policy (a name such as ``"float32"`` or ``"mixed_float16"``, or a
            :class:`~lamina.dtype_policies.DTypePolicy`); default the global policy
            (``lamina.mixed_precision.set_global_policy``). Weights are created in its
            ``variable_dtype``; floating inputs are cast to its ``compute_dtype``, and under
            a mixed policy weights are read in the compute dtype (Keras' autocast).
        input_shape: optional shape without the batch axis, for the first layer of a
            ``Sequential`` model (as in Keras).

    Subclasses implement ``build``, ``call`` and ``get_config``. Example:

        >>> class Scale(Layer):
        ...     def build(self, input_shape):
        ...         self.w = self.add_weight((input_shape[-1],), "ones", name="w")
        ...     def call(self, inputs):
        ...         return inputs * self.w
    """

    supports_masking = False
    input_spec = None
    call_accepts_training = False
    call_accepts_mask = False
    call_mask_arguments = ()
    call_first_argument = "inputs"
    overrides_compute_mask = False
    _overrides_compute_output_shape = False

    def __init_subclass__(cls, **kwargs):
        # Resolve the call signature once per class, never per call (Keras' overhead).
        super().__init_subclass__(**kwargs)
        parameters = inspect.signature(cls.call).parameters
        cls.call_accepts_training = "training" in parameters
        cls.call_accepts_mask = "mask" in parameters
        # Keras' ``{argument}_mask`` convention for calls with several tensor arguments
        # (``query_mask`` for ``query``): (position among the call's arguments, mask name).
        positional = [name for name, p in parameters.items()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)][1:]
        cls.call_first_argument = positional[0] if positional else "inputs"
        cls.call_mask_arguments = tuple((i, f"{name}_mask") for i, name in enumerate(positional)
                                         if f"{name}_mask" in parameters)
        cls.overrides_compute_mask = cls.compute_mask is not Layer.compute_mask
        cls._overrides_compute_output_shape = (
            cls.compute_output_shape is not Layer.compute_output_shape)
        if "__init__" in cls.__dict__:
            cls.__init__ = accept_legacy_shape_keywords(cls.__dict__["__init__"])

    def __init__(self, name=None, trainable=True, dtype=None, input_shape=None):
        if name is not None and not isinstance(name, str):
            raise TypeError(f"layer name must be a string, got {name!r}")
        if name is not None and "/" in name:
            raise ValueError(f"layer name cannot contain '/' (it separates the parts of "
                             f"weight paths, as in Keras), got name={name!r}")
        self._name = name or unique_name(snake_case(type(self).__name__))
        self._trainable = bool(trainable)
        self.dtype_policy = dtype
        self.built = False
        self._own_weights = []
        self._sublayers = []
        self._inbound_nodes = []
        self._call_losses = {}  # thread id -> penalties added in that thread's last pass
        self._spec_checked = None   # (input_spec, shape) of the last input that passed it
        self.activity_regularizer = None
        self.build_input_shape = None
        self._batch_input_shape = None
        if input_shape is not None:
            warnings.warn(INPUT_SHAPE_WARNING, stacklevel=3)
            self._batch_input_shape = (None,) + tuple(input_shape)

    # ------------------------------------------------------------------ attributes
    def __setattr__(self, key, value):
        # Track sublayers assigned as attributes (alone or in lists), as Keras does.
        if isinstance(value, Layer) and key != "_outer" and "_sublayers" in self.__dict__:
            if value not in self._sublayers:
                self._sublayers.append(value)
        elif isinstance(value, (list, tuple)) and "_sublayers" in self.__dict__:
            for item in value:
                if isinstance(item, Layer) and item not in self._sublayers:
                    self._sublayers.append(item)
        object.__setattr__(self, key, value)

    @property
    def name(self):
        return self._name

    @property
    def trainable(self):
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        """Set the flag on this layer and every sublayer (Keras 3 semantics)."""
        self._trainable = bool(value)
        for layer in self.tracked_layers():
            layer.trainable = value
        self.sync_requires_grad(True)

    def sync_requires_grad(self, parent_trainable):
        enabled = parent_trainable and self._trainable
        for weight in self._own_weights:
            weight.requires_grad = enabled and weight.trainable
        for layer in self._sublayers:
            layer.sync_requires_grad(enabled)

    # ------------------------------------------------------------------ weights
    def add_weight(self, shape=None, initializer=None, dtype=None, trainable=True,
                   autocast=True, regularizer=None, constraint=None, aggregation="none",
                   name=None):
        """Create a weight Variable owned by this layer (Keras 3's signature and order).

        Args:
            shape: tuple of ints (default ``()``, a scalar).
            initializer: a name, config dict or Initializer (default ``"glorot_uniform"``
                for floating dtypes, ``"zeros"`` otherwise).
            dtype: the variable's dtype (default the layer's).
            trainable: ``False`` for state such as moving statistics.
            autocast, aggregation: as Keras' (``aggregation``: ``"none"``, ``"mean"``, ...).
            regularizer: optional penalty added to the training loss.
            constraint: optional projection applied after each optimizer update.
            name: Keras' weight name (``"kernel"``, ...); a string first argument raises
                ``ValueError`` as in Keras 3 (pass ``name=`` as a keyword).
        Returns:
            The :class:`Variable`.
        """
        if isinstance(shape, str):
            raise ValueError(f"Layer '{self.name}': `name` must be passed as a keyword "
                             f"argument. Received: add_weight('{shape}', ...). "
                             f"Use: add_weight(shape=..., name='{shape}').")
        shape = () if shape is None else tuple(int(s) for s in shape)
        name = name or "variable"
        if any(s < 0 for s in shape):
            raise ValueError(f"Layer '{self.name}' weight '{name}' needs a non-negative "
                             f"shape, got {shape}")
        _charge_weight_budget(self, name, shape)
        dtype = np.dtype(dtype or self.dtype).name
        if initializer is None:
            initializer = "glorot_uniform" if np.dtype(dtype).kind == "f" else "zeros"
        value = initializers_module.get(initializer)(shape, dtype=dtype)
        variable = Variable(value, dtype=dtype, trainable=trainable, autocast=autocast,
                            aggregation=aggregation, name=name)
        variable.requires_grad = trainable and self._trainable
        variable.path = autodiff.scoped_path(f"{self.name}/{name}")   # under name_scopes
        variable.regularizer = None if regularizer is None else regularizers_module.get(regularizer)
        variable.constraint = constraints_module.get(constraint)
        self._own_weights.append(variable)
        return variable

    def add_variable(self, shape, initializer, dtype=None, trainable=True, autocast=True,
                     regularizer=None, constraint=None, name=None):
        """Keras 3's alias of :meth:`add_weight`."""
        return self.add_weight(shape=shape, initializer=initializer, dtype=dtype,
                               trainable=trainable, autocast=autocast,
                               regularizer=regularizer, constraint=constraint, name=name)

    def tracked_layers(self):
        """The layers this layer owns (walked for weights, losses and ``trainable``)."""
        return self._sublayers

    own_weights = property(lambda self: self._own_weights, doc="The weights this layer "
                           "made with ``add_weight`` (not its sublayers'), in order.")

    inbound_nodes = property(lambda self: self._inbound_nodes,
                             doc="The graph nodes of this layer's calls on symbolic tensors.")

    @property
    def batch_input_shape(self):
        """``(None, *input_shape)`` when the layer was given ``input_shape``, else None."""
        return self._batch_input_shape

    def _collect_weights(self, own, of_sublayer):
        """``own`` weights, then ``of_sublayer(layer)`` for each sublayer, each weight once
        (a layer shared by two sublayers contributes its weights once)."""
        result = list(own)
        seen = {id(w) for w in result}
        for layer in self.tracked_layers():
            for weight in of_sublayer(layer):
                if id(weight) not in seen:
                    seen.add(id(weight))
                    result.append(weight)
        return result

    @property
    def weights(self):
        """All weights: this layer's (trainable, then non-trainable), then each sublayer's,
        in Keras 3's order."""
        own = [w for w in self._own_weights if w.trainable]
        own += [w for w in self._own_weights if not w.trainable]
        return self._collect_weights(own, lambda layer: layer.weights)

    @property
    def trainable_weights(self):
        if not self._trainable:
            return []
        return self._collect_weights([w for w in self._own_weights if w.trainable],
                                     lambda layer: layer.trainable_weights)

    @property
    def non_trainable_weights(self):
        if not self._trainable:
            return self._collect_weights(self._own_weights, lambda layer: layer.weights)
        return self._collect_weights([w for w in self._own_weights if not w.trainable],
                                     lambda layer: layer.non_trainable_weights)

    @property
    def variables(self):
        """Every Variable of the layer (Keras 3's ``variables``; the same as ``weights``)."""
        return self.weights

    @property
    def trainable_variables(self):
        """Keras 3's name for :attr:`trainable_weights`."""
        return self.trainable_weights

    @property
    def non_trainable_variables(self):
        """Keras 3's name for :attr:`non_trainable_weights`."""
        return self.non_trainable_weights

    def get_weights(self):
        """The weights' values as NumPy arrays, in ``weights`` order."""
        return [w.numpy().copy() for w in self.weights]

    def set_weights(self, weights):
        """Set every weight from NumPy arrays (same order, count and shapes as ``weights``).

        Everything is checked before anything is assigned.
        """
        targets = self.weights
        weights = list(weights)
        if len(weights) != len(targets):
            raise ValueError(f"Layer '{self.name}' expects {len(targets)} weight arrays, "
                             f"got {len(weights)}")
        for target, value in zip(targets, weights):
            if tuple(np.shape(value)) != target.shape:
                raise ValueError(f"Layer '{self.name}' weight '{target.name}' has shape "
                                 f"{target.shape}, got an array of shape {np.shape(value)}")
        for target, value in zip(targets, weights):
            target.assign(value)

    def count_params(self):
        """Total number of scalars in the layer's weights."""
        return int(sum(int(np.prod(w.shape)) for w in self.weights))

    # ------------------------------------------------------------------ losses
    def add_loss(self, loss):
        """Add a scalar Tensor penalty to the training loss (for this forward pass; a
        pass running on another thread meanwhile keeps its own penalties)."""
        _added_losses[0] += 1
        self._call_losses.setdefault(threading.get_ident(), []).append(loss)

    @property
    def losses(self):
        """Penalties of this layer and its sublayers: activity losses of the last forward
        pass on this thread plus weight-regularization penalties (recomputed, so they
        carry gradients)."""
        result = list(self._call_losses.get(threading.get_ident(), ()))
        for weight in self._own_weights:
            regularizer = getattr(weight, "regularizer", None)
            if regularizer is not None:
                result.append(regularizer(weight))
        for layer in self.tracked_layers():
            result.extend(layer.losses)
        return result

    def _clear_call_losses(self):
        self._call_losses.pop(threading.get_ident(), None)
        for layer in self.tracked_layers():
            layer._clear_call_losses()

    # ------------------------------------------------------------------ contract
    def build(self, input_shape):
        """Create weights for inputs of ``input_shape`` (batch axis ``None``)."""
        self.built = True

    def call(self, inputs):
        """The computation; override in subclasses."""
        raise NotImplementedError(f"Layer '{self.name}' ({type(self).__name__}) defines no call()")

    def compute_output_shape(self, input_shape):
        """Output shape for ``input_shape``; by default found by tracing ``call`` (see
        :meth:`_traced_output_shape`)."""
        placeholders = rebuild_shapes(input_shape, iter(
            SymbolicTensor(shape, dtype) for shape, dtype in
            zip(flat_shapes(input_shape), self._trace_dtypes(input_shape))))
        return self._traced_output_shape((placeholders,), {})

    def _trace_dtypes(self, input_shape):
        return getattr(self, "_last_input_dtypes", None) or [self._compute_dtype] * len(
            flat_shapes(input_shape))

    def _traced_output_shape(self, args, kwargs):
        """Run ``call`` twice on zeros standing for the symbolic arguments, with unknown
        axes set to 2 and then 3; output axes that differ between the runs are unknown."""
        traced = []
        for unknown in (2, 3):
            call_args = [placeholders(a, unknown) for a in args]
            call_kwargs = {k: placeholders(v, unknown) for k, v in kwargs.items()}
            if self.call_accepts_training:
                call_kwargs["training"] = False
            with no_grad(), np.errstate(all="ignore"):  # placeholder values mean nothing
                outputs = self.call(*call_args, **call_kwargs)
            self._clear_call_losses()
            traced.append(map_structure(lambda t: tuple(t.shape), outputs))
        return merge_traced_shapes(*traced)

    def compute_mask(self, inputs, mask=None):
        """The mask of the outputs: the input mask when ``supports_masking``, else None."""
        return mask if self.supports_masking else None

    def registered_class_name(self):
        """The class name saved in configs (a public, registered name)."""
        return type(self).__name__

    def get_config(self):
        """Constructor arguments as a JSON-serializable dict (Keras' base keys)."""
        config = {"name": self.name, "trainable": self.trainable,
                  "dtype": self._dtype_policy_config()}
        if self._batch_input_shape is not None:
            config["batch_input_shape"] = list(self._batch_input_shape)
        return config

    @classmethod
    def from_config(cls, config):
        """Rebuild a layer from ``get_config()`` output."""
        return cls(**config)

    # ------------------------------------------------------------------ calling
    def ensure_built(self, input_shape):
        if not self.built:
            self._check_input_spec(input_shape)
            self.build_input_shape = input_shape
            self.build(input_shape)
            self.built = True

    def _check_input_spec(self, input_shape):
        spec = self.input_spec
        if spec is None or not is_shape(input_shape):
            return
        rank = len(input_shape)
        expected = None
        if spec.ndim is not None and rank != spec.ndim:
            expected = f"input of rank {spec.ndim}"
        elif spec.min_ndim is not None and rank < spec.min_ndim:
            expected = f"input of rank >= {spec.min_ndim}"
        else:
            for axis, size in spec.axes.items():
                if -rank <= axis < rank and input_shape[axis] is not None \
                        and input_shape[axis] != size:
                    dims = [None] * rank
                    dims[axis] = size
                    expected = f"input of shape {tuple(dims)}"
                    break
        if expected is not None:
            raise ValueError(f"Layer '{self.name}' expects {expected}, "
                             f"got input of shape {tuple(input_shape)}")

    def __call__(self, inputs=_BY_KEYWORD, *args, **kwargs):
        if inputs is _BY_KEYWORD:   # Keras 3: the first call argument given by keyword
            inputs = kwargs.pop(self.call_first_argument, _BY_KEYWORD)
            if inputs is _BY_KEYWORD:
                raise TypeError(f"layer '{self.name}' was called without its first argument "
                                f"'{self.call_first_argument}'")
        if type(inputs) is not Tensor and is_symbolic(inputs):
            return self._call_symbolic(inputs, args, kwargs)
        if _outermost_call.layer is None:
            # The outermost call starts a new forward pass: drop the penalties that
            # add_loss collected during the previous one (as Keras 3 does).
            _outermost_call.layer = self
            try:
                if _added_losses[0]:
                    self._clear_call_losses()
                return self.__call__(inputs, *args, **kwargs)
            finally:
                _outermost_call.layer = None
        if type(inputs) is not Tensor:
            inputs = self._convert_inputs(inputs)
        elif inputs.data.dtype != self._compute_dtype and inputs.data.dtype.kind == "f":
            inputs = self._autocast_input(inputs)
        if args and self._autocast_dtype is not None:
            args = tuple(self._convert_inputs(a) for a in args)
        if not self.built:
            self.ensure_built(_shape_of(inputs))
        elif self.input_spec is not None and type(inputs) is Tensor:
            shape = inputs.data.shape
            if self._spec_checked != (self.input_spec, shape):   # once per spec and shape
                self._check_input_spec(shape)
                self._spec_checked = (self.input_spec, shape)
        if not self.call_accepts_training:
            kwargs.pop("training", None)
        mask = kwargs.get("mask")
        if mask is None:
            # Keras 3: the mask attached to the inputs (``_keras_mask``) fills ``mask``
            # (one tensor argument) or ``{argument}_mask`` (several).
            mask = attached_mask(inputs)
            if args:
                if self.call_mask_arguments:
                    fill_argument_masks(self, (inputs, *args), kwargs)
            elif mask is not None and self.call_accepts_mask:
                kwargs["mask"] = mask
        if not self.call_accepts_mask:
            kwargs.pop("mask", None)
        if self._autocast_dtype != autocast_module.autocast_dtype():
            with autocast_module.autocast_scope(self._autocast_dtype):
                outputs = self.call(inputs, *args, **kwargs)
        else:
            outputs = self.call(inputs, *args, **kwargs)
        if self.activity_regularizer is not None:
            for output in flatten(outputs):
                self.add_loss(self.activity_regularizer(output))
        if self.supports_masking or self.overrides_compute_mask:
            if mask is not None or self.overrides_compute_mask:
                attach_masks(outputs, self.compute_mask(inputs, mask))
        elif mask is not None:
            warn_mask_dropped(self)
        return outputs

    def _convert_inputs(self, inputs):
        def convert(value):
            if value is None:
                return value
            if isinstance(value, Tensor):
                return self._autocast_input(value) if value.data.dtype.kind == "f" and \
                    value.data.dtype != self._compute_dtype else value
            if self._compute_dtype == "string":   # Input(dtype="string") stays NumPy
                return np.asarray(value, dtype=object)
            array = autodiff.as_engine_array(value)
            if array.dtype.kind == "f" and array.dtype != self._compute_dtype:
                array = array.astype(self._compute_dtype)
            return Tensor(array)

        if isinstance(inputs, (list, tuple, dict)):
            return map_structure(convert, inputs)
        return convert(inputs)

    def _call_symbolic(self, inputs, args, kwargs):
        input_shape = map_structure(lambda t: t.shape, inputs)
        self._last_input_dtypes = [t.dtype for t in flatten(inputs)]
        self.ensure_built(input_shape)
        self._check_input_spec(input_shape)
        extra_symbolic = any(is_symbolic(a) for a in args) or any(
            is_symbolic(v) for v in kwargs.values())
        mask = kwargs.get("mask")
        if mask is None and not args:
            mask = attached_mask(inputs)
        if self._overrides_compute_output_shape and not extra_symbolic:
            output_shape = self.compute_output_shape(input_shape)
        else:
            trace_kwargs = kwargs
            if mask is not None and self.call_accepts_mask and "mask" not in kwargs:
                trace_kwargs = {**kwargs, "mask": mask}   # for the trace only, not the node
            output_shape = self._traced_output_shape((inputs, *args), trace_kwargs)
        node = Node(self, (inputs, *args), kwargs)
        output_dtype = self._output_dtype(inputs)
        if is_shape(output_shape):
            outputs = SymbolicTensor(output_shape, output_dtype, node, 0)
            node.outputs = [outputs]
        else:
            node.outputs = [SymbolicTensor(shape, output_dtype, node, i)
                            for i, shape in enumerate(output_shape)]
            outputs = list(node.outputs)
        self._inbound_nodes.append(node)
        if self.supports_masking or self.overrides_compute_mask:
            attach_symbolic_masks(self, inputs, outputs, mask)
        return outputs

    def _output_dtype(self, inputs):
        return self._compute_dtype

    # ------------------------------------------------------------------ graph position
    def _node_attribute(self, attribute, what):
        """``attribute`` of the first node (first symbolic call), as Keras' ``input`` and
        ``output``: one tensor, or a list when the call had several."""
        if not self._inbound_nodes:
            raise AttributeError(f"The layer {self.name} has never been called and thus "
                                 f"has no defined {what}.")
        values = getattr(self._inbound_nodes[0], attribute)
        return values[0] if len(values) == 1 else list(values)

    @property
    def input(self):
        """The symbolic input(s) of the layer's first call on symbolic tensors (Keras'
        ``layer.input``); ``AttributeError`` if it was never called so."""
        return self._node_attribute("flat_inputs", "input")

    @property
    def output(self):
        """The symbolic output(s) of the layer's first call on symbolic tensors: with
        ``model.inputs``, the feature-extraction idiom ``Model(model.inputs,
        model.get_layer(name).output)``."""
        return self._node_attribute("outputs", "output")

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name!r} built={self.built}>"


def _shape_of(inputs):
    if isinstance(inputs, Tensor):
        return tuple(inputs.data.shape)
    return map_structure(lambda t: None if t is None else tuple(t.shape), inputs)



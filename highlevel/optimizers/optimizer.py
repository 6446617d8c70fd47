"""The optimizer base class (``keras.optimizers.Optimizer``) and the ``OPTIMIZERS`` registry.

:class:`Optimizer` holds what every optimizer shares: the learning rate, the iteration
count, gradient clipping, weight decay and the slot variables, preallocated the first time a
variable is seen. Each optimizer (one module each: ``sgd``, ``adam``, ``adamw``, ``rmsprop``,
``adagrad``) registers itself and implements ``_update``, its update rule written in place
with the engine's array module; an engine may supply a fused kernel for a rule
(``Backend.optimizer_kernel``: the NumPy engine's compiled Adam). Keras 3 semantics:
gradient clipping (``clipnorm`` per variable, ``global_clipnorm`` over all of them,
``clipvalue`` elementwise), decoupled ``weight_decay``, a learning rate that may be a
:class:`~lamina.highlevel.optimizers.schedules.LearningRateSchedule` evaluated at the current
iteration count (updates already applied, starting at 0).

State for checkpoints: ``optimizer.variables`` (also callable as ``variables()``) lists the
iteration counter first, then each variable's slots in the order the variables were first
seen, each slot a non-trainable :class:`~lamina.Variable` named like Keras 3
(``"dense_kernel_momentum"``). ``iterations`` is a Python int (settable), ``set_iterations``
sets it, ``get_slot(variable, "momentum")`` and ``slot_variables()`` give slots by variable.

Example:
    >>> opt = lamina.optimizers.Adam(learning_rate=1e-3)
    >>> grads = lamina.grad(loss, model.trainable_weights)
    >>> opt.apply(grads, model.trainable_weights)
"""

import re

import numpy as np

from ...backends import state
from ...backends.autodiff import Tensor, Variable, as_engine_array
from ...backends.registry import Registry
from ...backends.trace import host_input
from . import schedules as schedules_module
from .packed_update import PackedGroup
from .schedules import LearningRateSchedule

OPTIMIZERS = Registry("optimizer")


class _IterationsVariable(Variable):
    """The iteration counter as a Variable (int64 scalar) for checkpoints: assigning it
    sets the optimizer's counter."""

    __slots__ = ("_optimizer",)

    def __init__(self, optimizer):
        super().__init__(np.array(0, dtype="int64"), trainable=False, name="iteration")
        self._optimizer = optimizer

    def assign(self, value):
        super().assign(value)
        self._optimizer._iterations = int(self.data)


class _VariableList(list):
    """A list that can also be called, so ``opt.variables`` (Keras 3) and
    ``opt.variables()`` both work."""

    def __call__(self):
        return self


class _Record:
    """Per-variable optimizer state: the variable, its slot Variables, decay flag."""

    __slots__ = ("variable", "slots", "decay")

    def __init__(self, variable, slots, decay):
        self.variable = variable
        self.slots = slots
        self.decay = decay


class Optimizer:
    """Base class: holds the learning rate, the iteration count, clipping options and the
    slot variables; subclasses implement ``_update(variable_array, gradient_array, slots,
    learning_rate, step, decay)`` (in place, with ``_decay`` for weight decay and
    ``_buffer`` for scratch arrays) and list their ``slot_names``.

    Args:
        learning_rate: float, a LearningRateSchedule, or a callable with no arguments.
        weight_decay: decoupled decay ``w -= lr * weight_decay * w`` before each update.
        clipnorm: clip each gradient to this L2 norm.
        clipvalue: clip each gradient element to ``[-clipvalue, clipvalue]``.
        global_clipnorm: scale all gradients together so their global norm is at most this.
        loss_scale_factor: gradients are divided by it (use ``scale_loss`` on the loss).
        name: the optimizer's name.
    """

    slot_names = ()

    def __init__(self, learning_rate, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None, loss_scale_factor=None,
                 gradient_accumulation_steps=None, name=None, **kwargs):
        if "lr" in kwargs:                       # Keras 1/2 spelling
            learning_rate = kwargs.pop("lr")
        decay = kwargs.pop("decay", 0.0)
        for legacy in ("is_legacy_optimizer", "jit_compile"):
            kwargs.pop(legacy, None)
        if kwargs:
            raise TypeError(f"{type(self).__name__}() got unexpected arguments "
                            f"{sorted(kwargs)}")
        if decay:
            raise ValueError("the Keras 2 argument `decay` is not supported; use a "
                             "learning rate schedule (lamina.optimizers.schedules)")
        if sum(option is not None for option in (clipnorm, clipvalue, global_clipnorm)) > 1:
            raise ValueError(
                "Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can be set. "
                f"Received: clipnorm={clipnorm}, clipvalue={clipvalue}, "
                f"global_clipnorm={global_clipnorm}")
        if use_ema:
            raise ValueError("use_ema=True (exponential moving average of the weights) is "
                             "not supported by lamina")
        if gradient_accumulation_steps not in (None, 1):
            raise ValueError("gradient_accumulation_steps is not supported by lamina")
        self.name = name or type(self).__name__.lower()
        self.weight_decay = weight_decay
        self.clipnorm = clipnorm
        self.clipvalue = clipvalue
        self.global_clipnorm = global_clipnorm
        self.use_ema = use_ema
        self.ema_momentum = ema_momentum
        self.ema_overwrite_frequency = ema_overwrite_frequency
        self.loss_scale_factor = loss_scale_factor
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self._learning_rate = self._check_learning_rate(learning_rate)
        self._iterations = 0
        self._iterations_variable = _IterationsVariable(self)
        self._records = {}          # id(variable) -> _Record (holds the variable: ids stay valid)
        self._packed = None         # (variable ids, PackedGroup) of a small model
        self._order = []            # records in first-seen order
        self._exclude_ids = set()
        self._exclude_names = ()
        self._buffers = {}          # scratch arrays of the update rules, by shape and dtype

    # ------------------------------------------------------------- learning rate
    @staticmethod
    def _check_learning_rate(learning_rate):
        if isinstance(learning_rate, dict):
            learning_rate = schedules_module.deserialize(learning_rate)
        if isinstance(learning_rate, LearningRateSchedule) or callable(learning_rate):
            return learning_rate
        if isinstance(learning_rate, Tensor):
            learning_rate = learning_rate.numpy()
        try:
            return float(learning_rate)
        except (TypeError, ValueError):
            raise ValueError(f"learning_rate must be a float, a LearningRateSchedule or a "
                             f"callable, got {learning_rate!r}") from None

    @property
    def learning_rate(self):
        """The current learning rate as a float (a schedule is evaluated at ``iterations``)."""
        lr = self._learning_rate
        if type(lr) is float:
            return lr
        if isinstance(lr, LearningRateSchedule):
            return float(lr(self._iterations))
        return float(lr())

    @learning_rate.setter
    def learning_rate(self, value):
        if isinstance(value, (LearningRateSchedule, dict)) or callable(value):
            self._learning_rate = self._check_learning_rate(value)
            return
        if isinstance(self._learning_rate, LearningRateSchedule):
            raise TypeError(
                "This optimizer was created with a `LearningRateSchedule` object as its "
                "`learning_rate` constructor argument, hence its learning rate is not "
                "settable. If you need the learning rate to be settable, you should "
                "instantiate the optimizer with a float `learning_rate` argument.")
        self._learning_rate = self._check_learning_rate(value)

    # ------------------------------------------------------------- iterations
    @property
    def iterations(self):
        """Number of updates applied so far (a Python int)."""
        return self._iterations

    @iterations.setter
    def iterations(self, value):
        self.set_iterations(value)

    def set_iterations(self, value):
        """Set the iteration counter (e.g. when restoring a checkpoint)."""
        self._iterations = int(value)
        self._iterations_variable.data[...] = self._iterations

    @property
    def iterations_variable(self):
        """The counter as an int64 Variable (assigning it sets ``iterations``)."""
        return self._iterations_variable

    # ------------------------------------------------------------- slots
    def _slot_initial_value(self, slot_name):
        return 0.0

    def _record(self, variable):
        record = self._records.get(id(variable))
        if record is None:
            record = self._create_record(variable)
        return record

    def _create_record(self, variable):
        xp = state.backend().xp
        data = variable.data
        prefix = str(getattr(variable, "path", None) or getattr(variable, "name", "variable"))
        prefix = prefix.replace("/", "_")
        slots = tuple(
            Variable(xp.full(data.shape, self._slot_initial_value(slot), dtype=data.dtype),
                     trainable=False, name=f"{prefix}_{slot}")
            for slot in self.slot_names)
        record = _Record(variable, slots, self._decays(variable))
        self._records[id(variable)] = record
        self._order.append(record)
        return record

    def build(self, variables):
        """Create the slots of ``variables`` now (in this order) instead of on first use."""
        for variable in variables:
            self._record(variable)

    @property
    def built(self):
        return bool(self._order)

    @property
    def variables(self):
        """``[iterations, *slots]``: the counter, then each variable's slots (in
        ``slot_names`` order) in the order the variables were first seen. Works as a
        property (Keras 3) and as a call, ``variables()``."""
        out = _VariableList([self._iterations_variable])
        for record in self._order:
            out.extend(record.slots)
        return out

    def slot_variables(self):
        """``[(variable, {slot_name: slot Variable}), ...]`` in first-seen order."""
        return [(record.variable, dict(zip(self.slot_names, record.slots)))
                for record in self._order]

    def get_slot(self, variable, slot_name):
        """The slot ``slot_name`` (e.g. ``"momentum"``) of ``variable``."""
        record = self._records.get(id(variable))
        if record is None:
            raise KeyError(f"optimizer '{self.name}' has no slots for variable "
                           f"'{getattr(variable, 'name', variable)}' yet (call build())")
        if slot_name not in self.slot_names:
            raise KeyError(f"optimizer '{self.name}' has no slot {slot_name!r}; its slots "
                           f"are {list(self.slot_names)}")
        return record.slots[self.slot_names.index(slot_name)]

    def set_variables(self, values):
        """Restore ``variables`` from a list of arrays in the same order (build first)."""
        current = self.variables
        if len(values) != len(current):
            raise ValueError(f"optimizer '{self.name}' has {len(current)} variables, got "
                             f"{len(values)} values")
        for variable, value in zip(current, values):
            variable.assign(value)

    # ------------------------------------------------------------- weight decay
    def exclude_from_weight_decay(self, var_list=None, var_names=None):
        """Exempt variables (by object, or by name substrings/regexes) from weight decay."""
        self._exclude_ids.update(id(v) for v in var_list or ())
        self._exclude_names = tuple(self._exclude_names) + tuple(var_names or ())
        for record in self._order:
            record.decay = self._decays(record.variable)
        self._packed = None

    def _decays(self, variable):
        if not self.weight_decay or id(variable) in self._exclude_ids:
            return False
        path = str(getattr(variable, "path", None) or getattr(variable, "name", ""))
        return not any(re.search(pattern, path) for pattern in self._exclude_names)

    # ------------------------------------------------------------- applying
    def scale_loss(self, loss):
        """``loss * loss_scale_factor`` when one is set (gradients are unscaled in apply)."""
        return loss if self.loss_scale_factor is None else loss * self.loss_scale_factor

    def apply_gradients(self, grads_and_vars):
        """Apply ``[(gradient, variable), ...]``; None gradients are skipped."""
        grads, variables = [], []
        for gradient, variable in grads_and_vars:
            grads.append(gradient)
            variables.append(variable)
        self.apply(grads, variables)
        return self._iterations

    def apply(self, grads, variables):
        """One update of ``variables`` with ``grads`` (Tensors or engine arrays, None
        skipped), in place; then ``iterations += 1``."""
        arrays, targets = [], []
        for gradient, variable in zip(grads, variables):
            if gradient is None:
                continue
            g = gradient.data if isinstance(gradient, Tensor) else gradient
            data = variable.data
            if not state.backend().is_array(g):
                g = as_engine_array(g)
            if g.dtype != data.dtype:
                g = g.astype(data.dtype)
            if g.shape != data.shape:
                raise ValueError(
                    f"gradient of shape {tuple(g.shape)} does not match variable "
                    f"'{getattr(variable, 'name', '?')}' of shape {tuple(data.shape)}")
            arrays.append(g)
            targets.append(variable)
        if not targets:
            return
        arrays = self._clip_gradients(arrays)
        # inputs of a traced step (lamina.backends.trace); plain numbers otherwise
        lr = host_input("learning_rate", self.learning_rate)
        step = host_input("step", self._iterations + 1)
        records = [self._records.get(id(v)) or self._create_record(v) for v in targets]
        group = self._packed_group(targets, records)
        if group is not None:
            group.update(self, arrays, lr, step)
        else:
            for g, variable, record in zip(arrays, targets, records):
                self._update(variable.data, g, record.slots, lr, step, record.decay)
        for variable in targets:
            constraint = getattr(variable, "constraint", None)
            if constraint is not None:
                # Keras applies weight constraints right after each update, in place.
                variable.data[...] = constraint(variable.data)
        self._iterations = step
        self._iterations_variable.data[...] = step

    def _packed_group(self, variables, records):
        """The flat-buffer group for this exact variable list (small models only)."""
        key = tuple(id(v) for v in variables)
        cached = self._packed
        if cached is not None and cached[0] == key and cached[1].intact():
            return cached[1]
        group = PackedGroup(variables, records) if PackedGroup.eligible(variables, records) \
            else None
        self._packed = None if group is None else (key, group)
        return group

    def _clip_gradients(self, arrays):
        xp = state.backend().xp
        if self.loss_scale_factor is not None:
            inverse = 1.0 / self.loss_scale_factor
            arrays = [g * inverse for g in arrays]
        if self.clipnorm is not None and self.clipnorm > 0:
            clip = float(self.clipnorm)
            return [g * (clip / xp.maximum(xp.sqrt(xp.square(g).sum()), clip))
                    for g in arrays]
        if self.global_clipnorm is not None and self.global_clipnorm > 0:
            clip = float(self.global_clipnorm)
            total = xp.square(arrays[0]).sum()
            for g in arrays[1:]:
                total = total + xp.square(g).sum()
            norm = xp.sqrt(total)
            scale = clip / xp.maximum(norm, clip) + (norm - norm)   # NaN/inf propagate
            return [g * scale for g in arrays]
        if self.clipvalue is not None and self.clipvalue > 0:
            value = float(self.clipvalue)
            return [xp.clip(g, -value, value) for g in arrays]
        return arrays

    def _decay(self, variable, lr, decay):
        """Decoupled weight decay ``w -= lr * wd * w`` (for optimizers whose kernel does
        not fuse it)."""
        if decay:
            variable *= 1.0 - lr * self.weight_decay

    def _buffer(self, like):
        """A reusable uninitialized array of ``like``'s shape and dtype (scratch for an update
        rule's in-place arithmetic; its contents are undefined on every call)."""
        key = (type(like), like.shape, like.dtype.str)
        buffer = self._buffers.get(key)
        if buffer is None:
            buffer = state.backend().xp.empty(like.shape, dtype=like.dtype)
            self._buffers[key] = buffer
        return buffer

    def _update(self, variable, gradient, slots, learning_rate, step, decay):
        raise NotImplementedError(f"optimizer '{type(self).__name__}' must implement _update")

    # ------------------------------------------------------------- config
    def get_config(self):
        lr = self._learning_rate
        if isinstance(lr, LearningRateSchedule):
            lr = schedules_module.serialize(lr)
        elif callable(lr):
            lr = float(lr())
        return {"name": self.name, "learning_rate": lr, "weight_decay": self.weight_decay,
                "clipnorm": self.clipnorm, "global_clipnorm": self.global_clipnorm,
                "clipvalue": self.clipvalue, "use_ema": self.use_ema,
                "ema_momentum": self.ema_momentum,
                "ema_overwrite_frequency": self.ema_overwrite_frequency,
                "loss_scale_factor": self.loss_scale_factor,
                "gradient_accumulation_steps": self.gradient_accumulation_steps}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        if isinstance(config.get("learning_rate"), dict):
            config["learning_rate"] = schedules_module.deserialize(config["learning_rate"],
                                                                   custom_objects)
        return cls(**config)

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name!r} learning_rate={self.learning_rate}>"

    def __getstate__(self):
        """Pickled/deep-copied without the scratch buffers (made again when needed)."""
        return {**self.__dict__, "_buffers": {}}

    def __setstate__(self, state_dict):
        """After unpickling/deepcopy the variables are new objects: re-key slots by id."""
        self.__dict__.update(state_dict)
        self._records = {id(record.variable): record for record in self._order}
        self._packed = None
        self._exclude_ids = set()
        self._buffers = {}

"""The optimizer base class (``keras.optimizers.Optimizer``) and the ``OPTIMIZERS`` registry.

:class:`Optimizer` holds what every optimizer shares: the learning rate, the iteration
count, gradient clipping, weight decay and the slot variables, preallocated the first time a
variable is seen. Each optimizer (one module each: ``sgd``, ``adam``, ``adamw``, ``rmsprop``,
``adagrad``, ``nadam``, ``adamax``, ``adadelta``, ``lion``, ``ftrl``, ``adafactor``)
registers itself and implements ``update_rule``, its update rule written in place with the
engine's array module; an engine may supply a fused kernel for a rule
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

from ...backends import replica, state
from ...backends.autodiff import Tensor, Variable, as_engine_array
from ...backends.registry import Registry
from ...backends.trace import host_input
from . import packed_update
from . import schedules as schedules_module
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
    """Per-variable optimizer state: the variable, its slot Variables (those of the update
    rule), the base class's ``extra`` slots (EMA average, gradient accumulator), decay
    flag."""

    __slots__ = ("variable", "slots", "extra", "decay")

    def __init__(self, variable, slots, extra, decay):
        self.variable = variable
        self.slots = slots
        self.extra = extra
        self.decay = decay


class Optimizer:
    """Base class: holds the learning rate, the iteration count, clipping options and the
    slot variables; subclasses implement ``update_rule(variable_array, gradient_array, slots,
    learning_rate, step, decay)`` (in place, with ``_decay`` for weight decay and
    ``_buffer`` for scratch arrays) and list their ``slot_names``.

    Args:
        learning_rate: float, a LearningRateSchedule, or a callable with no arguments.
        weight_decay: decoupled decay ``w -= lr * weight_decay * w`` before each update.
        clipnorm: clip each gradient to this L2 norm.
        clipvalue: clip each gradient element to ``[-clipvalue, clipvalue]``.
        global_clipnorm: scale all gradients together so their global norm is at most this.
        use_ema: keep an exponential moving average of each variable (slot ``"average"``,
            ``average = ema_momentum * average + (1 - ema_momentum) * variable`` after
            every step, the first step copying the variable); ``finalize_variable_values``
            (called at the end of ``fit``) writes the averages into the variables.
        ema_momentum: the average's momentum, in [0, 1].
        ema_overwrite_frequency: with ``use_ema``, also overwrite the variables with their
            averages every this many iterations (None: only at the end of ``fit``).
        loss_scale_factor: gradients are divided by it (use ``scale_loss`` on the loss).
        gradient_accumulation_steps: an int >= 2: gradients are summed in the slot
            ``"gradient_accumulator"`` and the variables updated every this many calls
            with their mean; ``iterations`` then counts updates (calls // steps).
        name: the optimizer's name.
    """

    slot_names = ()
    #: Keras' grouping of the slots in its variable list (None: one group, all of
    #: ``slot_names`` interleaved per variable).
    slot_groups = None
    #: False for a rule that needs each variable's own shape (never flat-packed).
    packable = True

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
        if gradient_accumulation_steps and not gradient_accumulation_steps >= 2:
            raise ValueError("`gradient_accumulation_steps` must be an integer >= 2. "
                             f"Received: gradient_accumulation_steps="
                             f"{gradient_accumulation_steps}")
        if use_ema:
            if ema_momentum > 1 or ema_momentum < 0:
                raise ValueError("`ema_momentum` must be in the range [0, 1]. "
                                 f"Received: ema_momentum={ema_momentum}")
            if ema_overwrite_frequency and (not isinstance(ema_overwrite_frequency, int)
                                            or ema_overwrite_frequency < 1):
                raise ValueError("`ema_overwrite_frequency` must be an integer >= 1 or "
                                 "None. Received: ema_overwrite_frequency="
                                 f"{ema_overwrite_frequency}")
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
        self._packed = None         # (variable ids, PackedGroup, its positions, the rest)
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
            return float(lr(self.iterations))
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

    @property
    def learning_rate_schedule(self):
        """The ``LearningRateSchedule`` (or callable) driving the learning rate, or None when
        it is a fixed float."""
        lr = self._learning_rate
        return lr if callable(lr) else None

    # ------------------------------------------------------------- iterations
    @property
    def iterations(self):
        """Number of updates applied so far (a Python int); with
        ``gradient_accumulation_steps``, calls // steps as in Keras."""
        if self.gradient_accumulation_steps:
            return self._iterations // self.gradient_accumulation_steps
        return self._iterations

    @iterations.setter
    def iterations(self, value):
        self.set_iterations(value)

    def set_iterations(self, value):
        """Set the stored iteration counter (e.g. when restoring a checkpoint; it counts
        calls to ``apply``, as Keras' ``iteration`` variable)."""
        self._iterations = int(value)
        self._iterations_variable.data[...] = self._iterations

    @property
    def iterations_variable(self):
        """The counter as an int64 Variable (assigning it sets ``iterations``)."""
        return self._iterations_variable

    # ------------------------------------------------------------- slots
    def slot_initial_value(self, slot_name):
        """The value a new slot ``slot_name`` starts at (0; Adagrad's accumulator its own)."""
        return 0.0

    def _record(self, variable):
        record = self._records.get(id(variable))
        if record is None:
            record = self._create_record(variable)
        return record

    @property
    def extra_slot_names(self):
        """The base class's slots: ``"average"`` (``use_ema``), then
        ``"gradient_accumulator"`` (``gradient_accumulation_steps``)."""
        return (("average",) if self.use_ema else ()) + \
            (("gradient_accumulator",) if self.gradient_accumulation_steps else ())

    def slot_spec(self, variable_array, slot_name):
        """``(shape, dtype)`` of ``slot_name`` for a variable: the variable's own (an
        optimizer with other slot shapes overrides it)."""
        return variable_array.shape, variable_array.dtype

    def initial_slot_value(self, variable_array, slot_name):
        """A new engine array holding the initial value of ``slot_name`` for a variable."""
        xp = state.backend().xp
        if slot_name in self.extra_slot_names:
            return xp.zeros(variable_array.shape, dtype=variable_array.dtype)
        shape, dtype = self.slot_spec(variable_array, slot_name)
        return xp.full(shape, self.slot_initial_value(slot_name), dtype=dtype)

    def state_variables(self):
        """``{name: Variable}`` of state that belongs to no variable (Nadam's running
        product), after the slots in Keras' list; none by default."""
        return {}

    def _create_record(self, variable):
        data = variable.data
        prefix = str(getattr(variable, "path", None) or getattr(variable, "name", "variable"))
        prefix = prefix.replace("/", "_")

        def make(names):
            return tuple(Variable(self.initial_slot_value(data, slot), trainable=False,
                                  name=f"{prefix}_{slot}") for slot in names)

        record = _Record(variable, make(self.slot_names), make(self.extra_slot_names),
                         self._decays(variable))
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

    def keras_layout(self, variable_count):
        """Keras' order of the optimizer state after ``iteration`` and ``learning_rate``
        for ``variable_count`` variables: ``[(variable index, slot name)]``, the
        ``extra_slot_names`` first (all variables each), then each group of
        ``slot_groups`` interleaved per variable, then ``(None, name)`` for each of
        ``state_variables``."""
        groups = [(name,) for name in self.extra_slot_names]
        own = tuple(self.slot_names)
        grouped = [tuple(s for s in group if s in own) for group in self.slot_groups or ()]
        leftover = tuple(s for s in own if not any(s in group for group in grouped))
        groups += [group for group in grouped if group] + ([leftover] if leftover else [])
        layout = [(index, slot) for group in groups for index in range(variable_count)
                  for slot in group]
        return layout + [(None, name) for name in self.state_variables()]

    @property
    def variables(self):
        """``[iterations, *slots]``: the counter, then the slots of the variables (in
        the order they were first seen) in Keras' order (:meth:`keras_layout`). Works as
        a property (Keras 3) and as a call, ``variables()``."""
        out = _VariableList([self._iterations_variable])
        extra = self.state_variables()
        for index, slot in self.keras_layout(len(self._order)):
            out.append(extra[slot] if index is None
                       else self._slot_of(self._order[index], slot))
        return out

    def _slot_of(self, record, slot_name):
        if slot_name in self.slot_names:
            return record.slots[self.slot_names.index(slot_name)]
        return record.extra[self.extra_slot_names.index(slot_name)]

    def slot_variables(self):
        """``[(variable, {slot_name: slot Variable}), ...]`` in first-seen order."""
        names = tuple(self.extra_slot_names) + tuple(self.slot_names)
        return [(record.variable, dict(zip(names, record.extra + record.slots)))
                for record in self._order]

    def get_slot(self, variable, slot_name):
        """The slot ``slot_name`` (e.g. ``"momentum"``) of ``variable``."""
        record = self._records.get(id(variable))
        if record is None:
            raise KeyError(f"optimizer '{self.name}' has no slots for variable "
                           f"'{getattr(variable, 'name', variable)}' yet (call build())")
        names = tuple(self.extra_slot_names) + tuple(self.slot_names)
        if slot_name not in names:
            raise KeyError(f"optimizer '{self.name}' has no slot {slot_name!r}; its slots "
                           f"are {list(names)}")
        return self._slot_of(record, slot_name)

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
        skipped), in place; then ``iterations += 1``. In data-parallel training the
        gradients are first averaged over the processes."""
        grads = replica.reduce_gradients(grads)
        arrays, targets = [], []
        is_array = state.backend().is_array
        for gradient, variable in zip(grads, variables):
            if gradient is None:
                continue
            g = gradient.data if isinstance(gradient, Tensor) else gradient
            data = variable.data
            if not is_array(g):
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
        if self.loss_scale_factor is not None:
            inverse = 1.0 / self.loss_scale_factor
            arrays = [g * inverse for g in arrays]
        records = [self._records.get(id(v)) or self._create_record(v) for v in targets]
        arrays = self._accumulate(arrays, records)
        if arrays is not None:
            self._update_all(self._clip_gradients(arrays), targets, records)
        if self.use_ema:
            self._update_averages()
        for variable in targets:
            constraint = getattr(variable, "constraint", None)
            if constraint is not None:
                # Keras applies weight constraints right after each update, in place.
                variable.data[...] = constraint(variable.data)
        self._iterations += 1
        self._iterations_variable.data[...] = host_input("iterations", self._iterations)

    def _update_all(self, arrays, targets, records):
        # inputs of a traced step (lamina.backends.trace); plain numbers otherwise
        lr = host_input("learning_rate", self.learning_rate)
        step = host_input("step", self.iterations + 1)
        self._before_updates(step)
        group, packed, alone = self._packed_group(targets, records)
        if group is not None:
            group.update(self, [arrays[k] for k in packed], lr, step)
        for k in alone:
            self.update_rule(targets[k].data, arrays[k], records[k].slots, lr, step,
                             records[k].decay)

    def _before_updates(self, step):
        """Called once per update (all variables) before the rule runs; optimizers with
        state of their own (Nadam) advance it here."""

    def _accumulate(self, arrays, records):
        """With ``gradient_accumulation_steps``: add the gradients to the accumulators
        and return None, or on every steps-th call return the mean of the accumulated
        and current gradients (and zero the accumulators), as Keras does."""
        steps = self.gradient_accumulation_steps
        if not steps:
            return arrays
        index = self.extra_slot_names.index("gradient_accumulator")
        accumulators = [record.extra[index].data for record in records]
        if (self._iterations + 1) % steps:
            for g, accumulator in zip(arrays, accumulators):
                accumulator += g
            return None
        means = [(g + accumulator) / steps for g, accumulator in zip(arrays, accumulators)]
        for accumulator in accumulators:
            accumulator[...] = 0
        return means

    def _update_averages(self):
        """Keras' EMA step over every variable the optimizer holds (the first step copies
        the variables), then the overwrite every ``ema_overwrite_frequency`` iterations."""
        momentum = self.ema_momentum if self.iterations != 0 else 0.0
        for record in self._order:
            average = record.extra[0].data
            average *= momentum
            average += (1.0 - momentum) * record.variable.data
        frequency = self.ema_overwrite_frequency
        if frequency and (self.iterations + 1) % frequency == 0:
            self.finalize_variable_values([record.variable for record in self._order])

    def finalize_variable_values(self, var_list):
        """With ``use_ema``, write each variable's moving average into it (``fit`` calls
        this at the end of training, as Keras); otherwise nothing."""
        if not self.use_ema:
            return
        for variable in var_list:
            record = self._records.get(id(variable))
            if record is not None:
                variable.data[...] = record.extra[0].data

    def _packed_group(self, variables, records):
        """``(the flat-buffer group or None, the positions it covers, the positions updated
        alone)`` for this exact variable list (the group: its small variables, as
        ``packed_update.select`` picks them), made once per variable list."""
        key = tuple(id(v) for v in variables)
        cached = self._packed
        if cached is not None and cached[0] == key and cached[1].intact():
            return cached[1:]
        positions = packed_update.select(variables, records) if self.packable else []
        if not positions:
            self._packed = None
            return None, (), range(len(variables))
        group = packed_update.PackedGroup([variables[k] for k in positions],
                                          [records[k] for k in positions])
        covered = set(positions)
        self._packed = (key, group, positions,
                        [k for k in range(len(variables)) if k not in covered])
        return self._packed[1:]

    def _clip_gradients(self, arrays):
        xp = state.backend().xp
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

    def update_rule(self, variable, gradient, slots, learning_rate, step, decay):
        raise NotImplementedError(f"optimizer '{type(self).__name__}' must implement update_rule")

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

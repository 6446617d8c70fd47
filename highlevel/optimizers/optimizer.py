"""Optimizers (``keras.optimizers``): SGD, Adam, AdamW, RMSprop, Adagrad.

Each optimizer owns its update rule, written with the engine's array module and run in
place on slot arrays preallocated the first time a variable is seen; an engine may supply a
fused kernel for a rule (``Backend.optimizer_kernel``, the NumPy engine's compiled Adam). Keras 3
semantics: gradient clipping (``clipnorm`` per variable, ``global_clipnorm`` over all of
them, ``clipvalue`` elementwise), decoupled ``weight_decay``, a learning rate that may be a
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
    learning_rate, step, decay)`` and list their ``slot_names``.

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
        lr = self.learning_rate
        step = self._iterations + 1
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


@OPTIMIZERS.register("sgd")
class SGD(Optimizer):
    """Stochastic gradient descent with optional (Nesterov) momentum (Keras' form:
    ``v = momentum * v - lr * g; w += v`` or ``w += momentum * v - lr * g``)."""

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, weight_decay=None,
                 clipnorm=None, clipvalue=None, global_clipnorm=None, name="SGD", **kwargs):
        super().__init__(learning_rate, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, name=name,
                         **kwargs)
        if not 0 <= momentum <= 1:
            raise ValueError("`momentum` must be a float between [0, 1].")
        self.momentum = float(momentum)
        self.nesterov = bool(nesterov)
        self.slot_names = ("momentum",) if self.momentum != 0 else ()

    def _update(self, variable, gradient, slots, lr, step, decay):
        if decay:
            self._decay(variable, lr, decay)
        if not slots:
            variable -= lr * gradient
            return
        velocity = slots[0].data
        velocity *= self.momentum
        velocity -= lr * gradient
        if self.nesterov:
            variable += self.momentum * velocity - lr * gradient
        else:
            variable += velocity

    def get_config(self):
        return {**super().get_config(), "momentum": self.momentum, "nesterov": self.nesterov}


@OPTIMIZERS.register("adam")
class Adam(Optimizer):
    """Adam (Keras' form, epsilon outside the square root), optionally AMSGrad."""

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 amsgrad=False, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, name="adam", **kwargs):
        super().__init__(learning_rate, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, name=name,
                         **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self.amsgrad = bool(amsgrad)
        self.slot_names = ("momentum", "velocity") + (("velocity_hat",) if amsgrad else ())

    def _update(self, variable, gradient, slots, lr, step, decay):
        m, v = slots[0].data, slots[1].data
        v_hat = slots[2].data if self.amsgrad else None
        weight_decay = self.weight_decay if decay else 0.0
        alpha = lr * (1.0 - self.beta_2 ** step) ** 0.5 / (1.0 - self.beta_1 ** step)
        backend = state.backend()
        kernel = backend.optimizer_kernel("adam", variable.dtype)
        arrays = (variable, gradient, m, v) + (() if v_hat is None else (v_hat,))
        if kernel is not None and all(
                a.dtype == variable.dtype and a.flags.c_contiguous for a in arrays):
            kernel(variable, gradient, m, v, alpha, self.beta_1, self.beta_2, self.epsilon,
                   1.0 - lr * weight_decay, v_hat)
            return
        xp = backend.xp
        if weight_decay:
            variable *= 1.0 - lr * weight_decay
        # m = b1*m + (1-b1)*g written as b1*(m-g) + g: three in-place passes, no temporary.
        m -= gradient
        m *= self.beta_1
        m += gradient
        scratch = self._buffer(gradient)
        xp.multiply(gradient, gradient, out=scratch)
        v -= scratch
        v *= self.beta_2
        v += scratch
        if v_hat is not None:
            xp.maximum(v_hat, v, out=v_hat)
        xp.sqrt(v if v_hat is None else v_hat, out=scratch)
        scratch += self.epsilon
        xp.divide(m, scratch, out=scratch)
        scratch *= alpha
        variable -= scratch

    def get_config(self):
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2,
                "epsilon": self.epsilon, "amsgrad": self.amsgrad}


@OPTIMIZERS.register("adamw")
class AdamW(Adam):
    """Adam with decoupled weight decay (``weight_decay=0.004``)."""

    def __init__(self, learning_rate=0.001, weight_decay=0.004, beta_1=0.9, beta_2=0.999,
                 epsilon=1e-7, amsgrad=False, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, name="adamw", **kwargs):
        if weight_decay is None:
            raise ValueError("Argument `weight_decay` must be a float. Received: "
                             "weight_decay=None")
        super().__init__(learning_rate=learning_rate, beta_1=beta_1, beta_2=beta_2,
                         epsilon=epsilon, amsgrad=amsgrad, weight_decay=weight_decay,
                         clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, name=name, **kwargs)


@OPTIMIZERS.register("rmsprop")
class RMSprop(Optimizer):
    """RMSprop (Keras' form, epsilon inside the square root), optional momentum and
    ``centered`` variant."""

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7,
                 centered=False, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, name="rmsprop", **kwargs):
        super().__init__(learning_rate, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, name=name,
                         **kwargs)
        self.rho = rho
        self.momentum = momentum
        self.epsilon = epsilon
        self.centered = bool(centered)
        self.slot_names = ("velocity",) + (("momentum",) if momentum > 0 else ()) + \
            (("average_gradient",) if centered else ())

    def _update(self, variable, gradient, slots, lr, step, decay):
        if decay:
            self._decay(variable, lr, decay)
        xp = state.backend().xp
        velocity = slots[0].data
        momentum = slots[1].data if self.momentum > 0 else None
        if not self.centered:
            scratch = self._buffer(gradient)
            xp.multiply(gradient, gradient, out=scratch)
            velocity -= scratch
            velocity *= self.rho
            velocity += scratch
            xp.add(velocity, self.epsilon, out=scratch)
            xp.sqrt(scratch, out=scratch)
            xp.divide(gradient, scratch, out=scratch)
            scratch *= lr
            if momentum is not None:
                momentum *= self.momentum
                momentum += scratch
                variable -= momentum
            else:
                variable -= scratch
            return
        average = slots[-1].data
        rho = self.rho
        velocity *= rho
        velocity += (1 - rho) * xp.square(gradient)
        average *= rho
        average += (1 - rho) * gradient
        increment = lr * gradient / xp.sqrt(velocity - xp.square(average) + self.epsilon)
        if momentum is not None:
            momentum *= self.momentum
            momentum += increment
            variable -= momentum
        else:
            variable -= increment

    def get_config(self):
        return {**super().get_config(), "rho": self.rho, "momentum": self.momentum,
                "epsilon": self.epsilon, "centered": self.centered}


@OPTIMIZERS.register("adagrad")
class Adagrad(Optimizer):
    """Adagrad: ``acc += g**2; w -= lr * g / sqrt(acc + epsilon)``."""

    slot_names = ("accumulator",)

    def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7,
                 weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None,
                 name="adagrad", **kwargs):
        super().__init__(learning_rate, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, name=name,
                         **kwargs)
        self.initial_accumulator_value = initial_accumulator_value
        self.epsilon = epsilon

    def _slot_initial_value(self, slot_name):
        return self.initial_accumulator_value

    def _update(self, variable, gradient, slots, lr, step, decay):
        if decay:
            self._decay(variable, lr, decay)
        xp = state.backend().xp
        accumulator = slots[0].data
        scratch = self._buffer(gradient)
        xp.multiply(gradient, gradient, out=scratch)
        accumulator += scratch
        xp.add(accumulator, self.epsilon, out=scratch)
        xp.sqrt(scratch, out=scratch)
        xp.divide(gradient, scratch, out=scratch)
        scratch *= lr
        variable -= scratch

    def get_config(self):
        return {**super().get_config(),
                "initial_accumulator_value": self.initial_accumulator_value,
                "epsilon": self.epsilon}


_BY_LOWER_NAME = {cls.__name__.lower(): cls for cls in (SGD, Adam, AdamW, RMSprop, Adagrad)}


def _lookup(name, custom_objects=None):
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    if isinstance(name, str):
        name = name.split(">")[-1]                  # Keras 2.11+ "Custom>Adam"
        found = _BY_LOWER_NAME.get(name.lower())
        if found is not None:
            return found
    return OPTIMIZERS.lookup(name)


def serialize(optimizer):
    """An optimizer as Keras 3 serializes it (``{"module", "class_name", "config",
    "registered_name"}``)."""
    return {"module": "keras.optimizers", "class_name": type(optimizer).__name__,
            "config": optimizer.get_config(), "registered_name": None}


def deserialize(config, custom_objects=None):
    """Rebuild an optimizer from a ``{"class_name", "config"}`` dict (Keras 2 or 3)."""
    if isinstance(config, str):
        return get(config, custom_objects)
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"cannot deserialize an optimizer from {config!r}: expected a name "
                         "or a dict with 'class_name' and 'config'")
    cls = _lookup(config["class_name"], custom_objects)
    return cls.from_config(dict(config.get("config") or {}), custom_objects)


def get(identifier, custom_objects=None):
    """Resolve an optimizer: an instance, a name (``"adam"``, ``"SGD"``, case-insensitive),
    a config dict or an Optimizer class. Unknown names raise ``ValueError`` listing the
    known ones."""
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, str):
        return _lookup(identifier, custom_objects)()
    if isinstance(identifier, dict):
        return deserialize(identifier, custom_objects)
    if isinstance(identifier, type) and issubclass(identifier, Optimizer):
        return identifier()
    raise ValueError(f"Could not interpret optimizer identifier: {identifier!r}")


schedules = schedules_module

__all__ = ["Adagrad", "Adam", "AdamW", "OPTIMIZERS", "Optimizer", "RMSprop", "SGD",
           "deserialize", "get", "schedules", "serialize"]

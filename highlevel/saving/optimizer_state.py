"""Optimizer state in checkpoints: the iteration counter and every slot variable, in
Keras' order (``iteration``, ``learning_rate``, then the slots of the model's trainable
weights, see :func:`keras_files.optimizer_layout`).

Writing uses the model's trainable weights in order, so the file does not depend on the
order in which the optimizer first saw them. Reading matches the file's entries to that
layout (by count and shape), and restoring builds the optimizer's slots on the model's
trainable weights before assigning them. The stored learning rate is informational: the
exact value comes from the optimizer's config (JSON keeps the float64), so a resumed
``fit`` is bit-identical.
"""

import warnings

import numpy as np

from . import h5io as integrity
from . import keras_format as keras_files
from ...backends import state
from .errors import CorruptFileError, WeightMismatchError


def trainable_names(model):
    """Legacy weight names of ``model.trainable_weights`` (for optimizer entry names)."""
    names = {}
    for layer in model.layers:
        for weight, name in zip(keras_files.legacy_weights(layer),
                                keras_files.legacy_weight_names(model, layer)):
            names.setdefault(id(weight), name)
    return [names.get(id(w), getattr(w, "path", w.name)) for w in model.trainable_weights]


def optimizer_values(model):
    """``[(name, array)]`` of the optimizer state in Keras' order. Slots are written only
    once the optimizer has been used (built), as Keras does."""
    optimizer = model.optimizer
    variables = list(model.trainable_weights)
    layout = keras_files.optimizer_layout(optimizer, variables, trainable_names(model))
    loss_scale = _LOSS_SCALE_VALUES.get
    inner = getattr(optimizer, "inner_optimizer", optimizer)
    values = []
    for name, kind, index, slot in layout:
        if loss_scale(kind):
            values.append((name, loss_scale(kind)(optimizer)))
        elif kind == "iteration":
            values.append((name, np.asarray(inner.iterations_variable.numpy(),
                                            dtype="int64")))
        elif kind == "learning_rate":
            values.append((name, np.asarray(optimizer.learning_rate, dtype="float32")))
        elif kind == "state" and optimizer.built:
            values.append((name, inner.state_variables()[slot].numpy()))
        elif optimizer.built:
            values.append((name, _slot_value(inner, variables[index], slot)))
    return values


# A LossScaleOptimizer's own entries (Keras writes them before the inner optimizer's):
# its iteration counter and learning rate stay at Keras' initial values (0, 0.0).
_LOSS_SCALE_VALUES = {
    "own_iteration": lambda optimizer: np.asarray(0, dtype="int64"),
    "own_learning_rate": lambda optimizer: np.asarray(0.0, dtype="float32"),
    "step_counter": lambda optimizer: optimizer.step_counter.numpy().copy(),
    "dynamic_scale": lambda optimizer: optimizer.dynamic_scale.numpy().copy(),
}


def _slot_value(optimizer, variable, slot):
    try:
        return optimizer.get_slot(variable, slot).numpy()
    except KeyError:            # never received a gradient: the slot's initial value
        initial = optimizer.initial_slot_value(variable.data, slot)
        return np.asarray(state.backend().to_numpy(initial))


def write_optimizer_weights(handle, model):
    """The legacy ``optimizer_weights`` group; returns the names written."""
    values = optimizer_values(model)
    group = handle.create_group("optimizer_weights")
    integrity.write_name_list(group, "weight_names", [name for name, _ in values])
    for name, value in values:
        integrity.write_array(group, name, value)
    return [name for name, _ in values]


def read_optimizer_weights(opened, verify):
    """``(names, arrays)`` of a legacy ``optimizer_weights`` group, or None."""
    if "optimizer_weights" not in opened.handle:
        return None
    group = opened.handle["optimizer_weights"]
    names = integrity.read_name_list(opened, group, "weight_names")
    arrays = []
    for name in names:
        if name not in group:
            raise CorruptFileError(f"{opened.name}: optimizer_weights lists '{name}' but "
                                   "has no such dataset", opened.path)
        arrays.append(integrity.read_array(opened, group[name],
                                           f"optimizer weight '{name}'", verify))
    return names, arrays


def iteration_value(array, where):
    """The stored iteration counter as an int: a whole number from 0 to 2**63 - 1 (Keras
    stores an int64; a float holding a whole number is accepted), else CorruptFileError."""
    value = np.asarray(array).reshape(())
    if value.dtype.kind in "iu":
        number = int(value)
    elif value.dtype.kind == "f" and np.isfinite(value) and float(value).is_integer():
        number = int(float(value))
    else:
        raise CorruptFileError(f"{where} is {value!r}, not a whole number")
    if not 0 <= number < 2**63:
        raise CorruptFileError(f"{where} is {number}; it must be from 0 to 2**63 - 1")
    return number


class OptimizerPlan:
    """Checked values to restore: the iteration count and ``(variable, slot, array)``."""

    def __init__(self, iterations, slots, loss_scale=()):
        self.iterations = iterations
        self.slots = slots
        self.loss_scale = loss_scale    # ``(name, array)`` of step_counter and dynamic_scale


def plan(model, names, arrays, where, strict=False):
    """Match stored optimizer values to ``model``'s optimizer; None (with a warning, or
    WeightMismatchError when ``strict``) when they do not fit."""
    optimizer = getattr(model, "optimizer", None)
    if optimizer is None or not arrays:
        return None
    variables = list(model.trainable_weights)
    layout = keras_files.optimizer_layout(optimizer, variables, trainable_names(model))
    inner = getattr(optimizer, "inner_optimizer", optimizer)    # a LossScaleOptimizer's
    kinds = [kind for _, kind, _, _ in layout]
    problem = None
    if names is not None:        # the legacy layout names its entries: follow the file
        has_lr = any(str(n).endswith("/learning_rate") for n in names)
        if has_lr and "learning_rate" not in kinds:
            layout.insert(1, ("learning_rate", "learning_rate", None, None))
        elif not has_lr and "learning_rate" in kinds:
            layout = [item for item in layout if item[1] != "learning_rate"]
    head = sum(1 for item in layout if item[1] != "slot")
    if len(arrays) not in (head, len(layout)):
        problem = (f"the file holds {len(arrays)} optimizer values, optimizer "
                   f"'{optimizer.name}' expects {len(layout)} for "
                   f"{len(variables)} trainable weights")
    slots = []
    loss_scale = []
    iterations = None
    if problem is None:
        for (name, kind, index, slot), array in zip(layout, arrays):
            if kind in ("step_counter", "dynamic_scale"):
                if np.asarray(array).size != 1 or not np.all(np.isfinite(array)):
                    problem = f"the loss scale entry '{name}' is {np.asarray(array)!r}"
                    break
                loss_scale.append((kind, np.asarray(array).reshape(())))
            elif kind == "iteration":
                if np.asarray(array).size != 1:
                    problem = f"the iteration counter has shape {np.shape(array)}"
                    break
                iterations = iteration_value(array, f"{where}: iteration counter '{name}'")
            elif kind == "slot":
                variable = variables[index]
                expected = tuple(inner.slot_spec(variable.data, slot)[0])
                if tuple(np.shape(array)) != expected:
                    problem = (f"slot '{name}' has shape {tuple(np.shape(array))}, "
                               f"expected {expected} for variable '{variable.name}' of "
                               f"shape {tuple(variable.shape)}")
                    break
                slots.append((variable, slot, array))
            elif kind == "state":
                expected = tuple(inner.state_variables()[slot].shape)
                if tuple(np.shape(array)) != expected:
                    problem = f"'{name}' has shape {tuple(np.shape(array))}, not {expected}"
                    break
                slots.append((None, slot, array))
    if problem is not None:
        message = f"{where}: optimizer state not restored: {problem}"
        if strict:
            raise WeightMismatchError(message)
        warnings.warn(message + "; the optimizer starts fresh", stacklevel=3)
        return None
    return OptimizerPlan(iterations, slots, loss_scale)


def plan_from_layout(model, file_vars, where="optimizer/vars"):
    """Plan from the ``optimizer/vars`` group of a ``.weights.h5`` file (or None)."""
    if file_vars is None or getattr(model, "optimizer", None) is None \
            or not getattr(model, "compiled", False):
        return None
    return plan(model, None, file_vars.arrays, where)


def apply(model, optimizer_plan):
    """Build the optimizer's slots on the model's trainable weights and assign."""
    optimizer = model.optimizer
    optimizer.build(list(model.trainable_weights))
    inner = getattr(optimizer, "inner_optimizer", optimizer)    # a LossScaleOptimizer's
    for variable, slot, array in optimizer_plan.slots:
        target = inner.state_variables()[slot] if variable is None \
            else inner.get_slot(variable, slot)
        target.assign(np.asarray(array).astype(target.numpy().dtype, copy=False))
    for kind, array in optimizer_plan.loss_scale:
        getattr(optimizer, kind).assign(array)
    if optimizer_plan.iterations is not None:
        optimizer.set_iterations(optimizer_plan.iterations)


__all__ = ["OptimizerPlan", "apply", "iteration_value", "optimizer_values", "plan", "plan_from_layout",
           "read_optimizer_weights", "trainable_names", "write_optimizer_weights"]

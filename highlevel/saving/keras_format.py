"""What Keras' HDF5 files look like, for reading and writing them (the README's "File
format" section summarizes them): weight names of the legacy layout, the tree of
``vars`` groups of Keras 3's ``.weights.h5`` layout, the order of optimizer variables,
and the translation of Keras-written configs into lamina's.

Nothing here touches a file; :mod:`weights_files` and :mod:`saving` do the reading and
writing.
"""

import inspect

from ...layers.base import Layer
from ...layers.naming import snake_case
from .errors import UnsupportedFormatError

KERAS_SCHEMA_VERSION = "3.15.1"     # the Keras version whose files lamina writes and reads


# ---------------------------------------------------------------------------- legacy layout
def legacy_weights(layer):
    """A layer's weights in the legacy file order: trainable, then non-trainable."""
    return list(layer.trainable_weights) + list(layer.non_trainable_weights)


def legacy_weight_names(model, layer):
    """Keras' ``weight_names`` of ``layer`` inside ``model``: variable paths such as
    ``dense/kernel``, ``lstm/lstm_cell/kernel`` (prefixed with the model name for a
    Sequential model), unique within the layer."""
    prefix = f"{model.name}/" if type(model).__name__ == "Sequential" or \
        model.registered_class_name() == "Sequential" else ""
    paths = {}
    _collect_paths(layer, prefix + layer.name, paths, set())
    names, used = [], set()
    for weight in legacy_weights(layer):
        name = paths.get(id(weight)) or f"{prefix}{layer.name}/{weight.name}"
        base, count = name, 1
        while name in used:
            name = f"{base}_{count}"
            count += 1
        used.add(name)
        names.append(name)
    return names


def _collect_paths(layer, path, paths, seen):
    if id(layer) in seen:
        return
    seen.add(id(layer))
    for weight in layer.own_weights:
        paths.setdefault(id(weight), f"{path}/{weight.name}")
    for child in layer.tracked_layers():
        _collect_paths(child, f"{path}/{child.name}", paths, seen)


# ---------------------------------------------------------------------------- weights layout
# Attributes of lamina's Layer / Model internals that are never children to visit (Keras
# skips every attribute a bare Layer has, the same way).
_INTERNAL = frozenset({
    "_sublayers", "_own_weights", "_inbound_nodes", "_call_losses", "_outer", "_graph",
    "_stack", "_input_layer", "_call_plan", "_trainable_list", "_trainable_key",
    "optimizer", "_compiled_loss", "_compiled_metrics", "_loss_tracker", "history",
    "layers", "weights", "trainable_weights", "non_trainable_weights", "losses",
    "inputs", "outputs", "metrics", "output", "input",
})


def name_key(name):
    """Keras' visiting order of attributes: public names sorted, then private ones."""
    return f"~{name}" if name.startswith("_") else name


def _is_model(obj):
    return hasattr(obj, "functional_graph") and hasattr(obj, "compile")


# Children Keras reaches through a public property of the same object (so its files use
# the public name), where lamina's layer only has the private attribute.
_KERAS_CHILD_NAMES = {
    "MultiHeadAttention": {"_query_dense": "query_dense", "_key_dense": "key_dense",
                           "_value_dense": "value_dense", "_output_dense": "output_dense"},
    "Pipeline": {"_pipeline_layers": "layers"},
}


def _children(obj):
    """``[(attribute name, Layer or list of Layers)]`` in Keras' visiting order: a
    Sequential or functional model's ``layers`` first, then attributes (public names
    sorted, then private ones)."""
    first = []
    if _is_model(obj) and obj.is_graph_network:
        first = [("layers", list(obj.layers))]
    aliases = _KERAS_CHILD_NAMES.get(type(obj).__name__, {})
    rest = {aliases.get(name, name): value for name, value in _attributes(obj).items()}
    return first + sorted(rest.items(), key=lambda item: name_key(item[0]))


def _attributes(obj):
    """``{name: Layer or list of Layers}`` held in instance attributes or returned by
    properties of the layer's own classes (not lamina's Layer/Model internals)."""
    found = {}
    for name, value in vars(obj).items():
        if name in _INTERNAL or name.startswith("__"):
            continue
        if isinstance(value, Layer) or _is_layer_list(value):
            found[name] = value
    for klass in type(obj).__mro__:
        if klass in (Layer, object) or klass.__module__.endswith(("models.model",
                                                                   "models.sequential",
                                                                   "training.trainer")):
            continue
        for name, member in vars(klass).items():
            if name in found or name in _INTERNAL or not isinstance(member, property):
                continue
            try:
                value = getattr(obj, name)
            except Exception:  # a property that cannot be computed now is not a child
                continue
            if isinstance(value, Layer) or _is_layer_list(value):
                found[name] = value
    return found


def _is_layer_list(value):
    return isinstance(value, (list, tuple)) and bool(value) and all(
        isinstance(item, Layer) for item in value)


def own_variables(obj):
    """Variables stored in an object's own ``vars`` group: trainable, then not (by each
    variable's own flag, as Keras' ``save_own_variables``)."""
    own = list(getattr(obj, "own_weights", ()))
    return [w for w in own if w.trainable] + [w for w in own if not w.trainable]


class VarsEntry:
    """One ``vars`` group: its path (``layers/dense``), the saveable's name (the group's
    ``name`` attribute), the variables in order, the top-level layer it belongs to, and
    the saveable itself (a layer's ``save_own_variables`` / ``save_assets`` use it)."""

    __slots__ = ("path", "name", "variables", "owner", "saveable")

    def __init__(self, path, name, variables, owner, saveable=None):
        self.path, self.name, self.variables, self.owner = path, name, variables, owner
        self.saveable = saveable


def weights_layout_entries(model):
    """Every ``vars`` group of Keras 3's weights layout for ``model``, in Keras' order
    (the model's own ``vars`` at path ``""`` first; the optimizer is not included)."""
    entries = []
    _walk(model, "", entries, set(), owner=None)
    return entries


def _walk(obj, path, entries, visited, owner):
    if id(obj) in visited:
        return
    visited.add(id(obj))
    entries.append(VarsEntry(path, obj.name, own_variables(obj), owner, obj))
    for attribute, child in _children(obj):
        child_path = f"{path}/{attribute}" if path else attribute
        if isinstance(child, Layer):
            _walk(child, child_path, entries, visited, owner or child)
        else:
            used = {}
            for item in child:
                key = _class_key(item)
                count = used.get(key)
                used[key] = 0 if count is None else count + 1
                unique = key if count is None else f"{key}_{count + 1}"
                _walk(item, f"{child_path}/{unique}", entries, visited, owner or item)


def _class_key(layer):
    name = type(layer).__name__
    if name == "Model" and layer.registered_class_name() == "Functional":
        name = "Functional"
    return snake_case(name)


# ---------------------------------------------------------------------------- optimizer
def optimizer_layout(optimizer, variables, variable_names):
    """Keras' list of optimizer variables for ``variables`` (the model's trainable
    weights, named ``variable_names`` in the legacy layout):
    ``[(weight name, kind, variable index or None, slot name or None)]`` with kind
    ``"iteration"``, ``"learning_rate"`` (only for a float learning rate), ``"slot"``
    or ``"state"`` (a variable of the optimizer's own, ``state_variables``), in the
    optimizer's ``keras_layout`` order; a LossScaleOptimizer lists its own iteration,
    learning rate, ``"step_counter"`` and ``"dynamic_scale"``, then its inner
    optimizer's layout."""
    inner = getattr(optimizer, "inner_optimizer", None)
    if inner is not None:
        prefix = optimizer.name
        return [(f"{prefix}/iteration", "own_iteration", None, None),
                (f"{prefix}/learning_rate", "own_learning_rate", None, None),
                (f"{prefix}/step_counter", "step_counter", None, None),
                (f"{prefix}/dynamic_scale", "dynamic_scale", None, None),
                *optimizer_layout(inner, variables, variable_names)]
    prefix = optimizer.name
    layout = [(f"{prefix}/iteration", "iteration", None, None)]
    if optimizer.learning_rate_schedule is None:
        layout.append((f"{prefix}/learning_rate", "learning_rate", None, None))
    for index, slot in optimizer.keras_layout(len(variable_names)):
        if index is None:
            layout.append((f"{prefix}/{slot}", "state", None, slot))
        else:
            flat = variable_names[index].replace("/", "_")
            layout.append((f"{prefix}/{flat}_{slot}", "slot", index, slot))
    return layout


# ---------------------------------------------------------------------------- configs
# Keras config keys that lamina layers do not take and that never change inference.
_IGNORED_KEYS = {"quantization_config", "lora_rank", "lora_alpha", "optional", "ragged",
                 "build_config", "compile_config", "module", "registered_name",
                 "gradient_checkpointing"}


def dtype_name(value):
    """A dtype from a config: a string, or Keras' DTypePolicy dict (``{"class_name":
    "DTypePolicy", "config": {"name": "float32"}}`` gives its policy name, such as
    ``"mixed_float16"``, which lamina layers take as ``dtype``)."""
    if isinstance(value, dict):
        config = value.get("config") or {}
        return config.get("name", "float32")
    return value


def normalize_layer_config(cls, config, where):
    """A Keras-written layer config made acceptable to lamina's ``cls.from_config``:
    DTypePolicy dicts become dtype names and Keras-only keys that do not affect the
    computation are dropped. A key lamina does not support, with a non-default value,
    raises ``UnsupportedFormatError``."""
    config = dict(config)
    if "dtype" in config:
        config["dtype"] = dtype_name(config["dtype"])
    for key in _IGNORED_KEYS & set(config):
        if key in ("quantization_config", "lora_rank") and config[key] not in (None, 0):
            raise UnsupportedFormatError(f"{where}: Keras option {key}={config[key]!r} is "
                                         "not supported by lamina")
        config.pop(key)
    for key, value in list(config.items()):
        if isinstance(value, dict) and isinstance(value.get("class_name"), str) and \
                isinstance(value.get("config", {}), dict):
            config[key] = _normalize_object(value, f"{where} {key}")
    accepted = _accepted_arguments(cls)
    if accepted is None:
        return config
    for key in sorted(set(config) - accepted - {"batch_input_shape", "batch_shape"}):
        value = config[key]
        if value is None or value is False or value == {} or value == []:
            config.pop(key)
            continue
        raise UnsupportedFormatError(f"{where}: lamina's {cls.__name__} has no argument "
                                     f"{key!r} (the file sets it to {value!r})")
    return config


def _normalize_object(entry, where):
    """A nested initializer/regularizer entry with Keras-only keys removed: ``module`` and
    ``registered_name``, and arguments lamina's class lacks whose value is None (Keras
    3.15's ``input_axes`` / ``output_axes`` of variance-scaling initializers)."""
    from ...layers.options.initializers import INITIALIZERS
    from ...layers.options.regularizers import REGULARIZERS
    name = entry["class_name"]
    registry = next((r for r in (INITIALIZERS, REGULARIZERS) if name in r), None)
    if registry is None:
        return entry
    inner = dict(entry.get("config") or {})
    accepted = _accepted_arguments(registry.lookup(name))
    if accepted is not None:
        for key in sorted(set(inner) - accepted):
            if inner[key] is not None:
                raise UnsupportedFormatError(f"{where}: lamina's {name} has no argument "
                                             f"{key!r} (the file sets it to {inner[key]!r})")
            inner.pop(key)
    return {"class_name": name, "config": inner}


def _accepted_arguments(cls):
    """Names ``cls.__init__`` takes, or None when it takes ``**kwargs`` or a custom
    ``from_config`` decides."""
    try:
        parameters = inspect.signature(cls.__init__).parameters
    except (TypeError, ValueError):
        return None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return None
    return {name for name in parameters if name != "self"}


def loss_for_file(identifier):
    """A compile ``loss`` argument as Keras can reload it: names become the loss object's
    Keras 3 serialization (Keras 3.15 cannot reload a bare loss string from an .h5)."""
    from ..losses import losses as losses_module
    if isinstance(identifier, str):
        try:
            loss = losses_module.get(identifier)
        except ValueError:
            return identifier
        return losses_module.serialize(loss)
    if isinstance(identifier, list):
        return [loss_for_file(item) for item in identifier]
    if isinstance(identifier, dict) and "class_name" not in identifier:
        return {key: loss_for_file(value) for key, value in identifier.items()}
    return identifier


__all__ = ["KERAS_SCHEMA_VERSION", "VarsEntry", "dtype_name", "legacy_weight_names",
           "legacy_weights", "loss_for_file", "name_key", "normalize_layer_config",
           "optimizer_layout", "own_variables", "weights_layout_entries"]

"""Stored model configs: writing them as JSON, and rebuilding a model from one.

Rebuilding first walks the whole config: every layer class must be registered or given
in ``custom_objects`` (otherwise :class:`UnknownClassError`, naming the layer), a Lambda
layer gets its function from ``custom_objects`` by name (code stored in a file is never
evaluated), and configs written by Keras are translated into lamina's (DTypePolicy dicts,
Keras-only keys). Only then are the layers created. A subclassed model is built from the
``build_config`` input shape saved next to its config, as Keras does.
"""

import contextlib
import json

import numpy as np

from ...backends import registry
from ...backends.config import effective_safe_mode
from ...layers.base import LAYERS, Layer, WeightBudgetError, weight_budget
from . import keras_format as keras_files, serialization
from .errors import CheckpointError, ConfigError, UnknownClassError, describe

# Config keys holding nested layer entries ({"class_name", "config"}), as Keras names them.
_NESTED_LAYER_KEYS = ("layer", "backward_layer", "forward_layer", "cell")
_NESTED_LAYER_LIST_KEYS = ("layers", "cells")


# ---------------------------------------------------------------------------- writing
def json_default(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.dtype):
        return value.name
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"a model config holds {value!r} ({type(value).__name__}), which is not "
                    "JSON-serializable: get_config() must return plain values")


def to_json(value):
    """JSON text of a config (NumPy scalars and arrays become plain values)."""
    return json.dumps(value, default=json_default)


def model_entry(model):
    """``{"class_name", "config"}`` of a model, plus ``build_config`` (the input shape) for
    a built subclassed model, whose weights exist only once it has been called."""
    entry = serialization.serialize_layer(model)
    if getattr(model, "functional_graph", None) is None and model.built and \
            model.build_input_shape is not None:
        entry["build_config"] = {"input_shape": without_batch(model.build_input_shape)}
    return entry


def without_batch(shape):
    if isinstance(shape, dict):
        return {key: without_batch(value) for key, value in shape.items()}
    if isinstance(shape, (list, tuple)) and shape and isinstance(shape[0], (list, tuple,
                                                                           dict)):
        return [without_batch(item) for item in shape]
    if isinstance(shape, (list, tuple)):
        return [None] + [None if s is None else int(s) for s in list(shape)[1:]]
    return shape


# ---------------------------------------------------------------------------- reading
def prepare(entry, custom_objects, source, from_keras, where="model", safe_mode=True):
    """A copy of the layer entry ``entry`` ready for deserialization (see module doc)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("class_name"), str):
        raise ConfigError(f"{describe(source)}: {where} is not a "
                          "{'class_name': ..., 'config': ...} entry", source)
    class_name = entry["class_name"]
    config = entry.get("config")
    config = {} if config is None else config
    if not isinstance(config, dict):
        raise ConfigError(f"{describe(source)}: the config of {where} is not a dict", source)
    layer_name = config.get("name", entry.get("name", "?"))
    label = f"layer '{layer_name}' ({class_name})"
    cls = _lookup(entry, custom_objects, source, label)
    _check_dtype(config.get("dtype"), source, label)
    config = dict(config)
    for key in _NESTED_LAYER_KEYS:
        if isinstance(config.get(key), dict) and "class_name" in config[key]:
            config[key] = prepare(config[key], custom_objects, source, from_keras,
                                  f"{key} of {label}", safe_mode)
    for key in _NESTED_LAYER_LIST_KEYS:
        if isinstance(config.get(key), list) and all(
                isinstance(item, dict) and "class_name" in item for item in config[key]):
            config[key] = [prepare(item, custom_objects, source, from_keras,
                                   f"{key}[{index}] of {label}", safe_mode)
                           for index, item in enumerate(config[key])]
    if _is_lambda(cls):
        config = _resolve_lambda(config, custom_objects, source, label, safe_mode)
    if from_keras and cls is not None and issubclass(cls, Layer) and not is_model_class(cls):
        try:
            config = keras_files.normalize_layer_config(cls, config, f"{describe(source)}: "
                                                                     f"{label}")
        except CheckpointError as error:
            error.path = source
            raise
    result = dict(entry)
    result["config"] = config
    return result


# Kinds of dtype a layer may compute in: floats for weights, ints/bools/strings for inputs
# and lookups. Complex and object dtypes are refused before any layer is created.
_LAYER_DTYPE_KINDS = "fiubUS"


def _check_dtype(value, source, label):
    """ConfigError unless a layer config's ``dtype`` is absent or a real numeric, boolean
    or string dtype (a Keras DTypePolicy dict gives its name)."""
    name = keras_files.dtype_name(value)
    if name is None or name in ("bfloat16", "string", "mixed_float16", "mixed_bfloat16"):
        return
    try:
        kind = np.dtype(name).kind if isinstance(name, str) else None
    except TypeError:
        kind = None
    if kind is None or kind not in _LAYER_DTYPE_KINDS:
        raise ConfigError(f"{describe(source)}: {label} has dtype {name!r}; lamina layers "
                          "compute in float16/32/64 or bfloat16 (inputs and lookups also "
                          "in integer, bool or string dtypes)", source)


def _lookup(entry, custom_objects, source, label):
    """The class of a layer entry: by ``registered_name``, then ``class_name``, through
    the registry, registered custom objects and ``custom_objects`` (never ``module``)."""
    class_name = entry["class_name"]
    try:
        return LAYERS.lookup_entry(entry, custom_objects)
    except ValueError:
        pass
    raise UnknownClassError(
        f"{describe(source)}: {label} uses class {class_name!r}, which is neither a "
        f"built-in lamina layer nor registered: pass it with "
        f"custom_objects={{'{class_name}': {class_name}}}", source)


def is_model_class(cls):
    return isinstance(cls, type) and hasattr(cls, "compile") and hasattr(cls, "_set_graph")


def _is_lambda(cls):
    return isinstance(cls, type) and cls.__name__ == "Lambda" and LAYERS.lookup(
        "Lambda") is cls


def _resolve_lambda(config, custom_objects, source, label, safe_mode=True):
    """Replace a Lambda's stored function reference by the callable in custom_objects.
    Stored code (Keras' ``__lambda__``) is refused in ``safe_mode`` as Keras refuses it
    (off for good after ``lamina.config.enable_unsafe_deserialization()``);
    without ``safe_mode`` the function still comes from ``custom_objects`` (by the layer's
    name), never from the code."""
    config = dict(config)
    reference = config.get("function")
    if effective_safe_mode(safe_mode) and isinstance(reference, dict) and \
            reference.get("class_name") == "__lambda__":
        raise ConfigError(
            f"{describe(source)}: {label} stores a Python lambda as code. Requested the "
            "deserialization of a `Lambda` layer whose `function` is a Python lambda: this "
            "is disallowed in safe_mode (the default); lamina never runs code from a file, "
            "so load with safe_mode=False and pass the function with "
            f"custom_objects={{'{config.get('name')}': function}}", source)
    name = None
    if isinstance(reference, str):
        name = reference
    elif isinstance(reference, dict) and isinstance(reference.get("config"), str):
        name = reference["config"]
    layer_name = config.get("name")
    objects = registry.effective_custom_objects(custom_objects)
    function = objects.get(name) if name and name not in ("<lambda>", "lambda") else None
    if function is None and isinstance(reference, dict):
        function = registry.find_custom_object(reference.get("registered_name"),
                                               custom_objects)
    if function is None and layer_name in objects:
        function = objects[layer_name]
    if not callable(function):
        stored = f"function {name!r}" if name else "Python code"
        raise UnknownClassError(
            f"{describe(source)}: {label} stores {stored}; lamina never runs code from a "
            f"file: pass the function with custom_objects={{'{name or layer_name}': "
            "function}", source)
    config["function"] = function
    for key in ("function_type", "module", "output_shape_type", "output_shape_module",
                "mask", "mask_type", "mask_module"):
        config.pop(key, None)
    if isinstance(config.get("output_shape"), (dict, str)):
        config["output_shape"] = None
    return config


def build_model(entry, custom_objects, source, from_keras, max_weight_values=None,
                safe_mode=True):
    """A model rebuilt from its stored ``{"class_name", "config"}`` entry.

    ``max_weight_values``: when given, the layers may create at most this many weight
    values in total; a config asking for more raises ConfigError naming the layer before
    its weight is allocated (a small file cannot make lamina allocate gigabytes).
    """
    prepared = prepare(entry, custom_objects, source, from_keras, safe_mode=safe_mode)
    budget = contextlib.nullcontext() if max_weight_values is None else weight_budget(
        max_weight_values, f"the file stores only {max_weight_values} weight values, so its "
        "model_config does not match its weights")
    try:
        with budget:
            return _deserialize_and_build(prepared, entry, custom_objects, source)
    except WeightBudgetError as error:
        raise ConfigError(f"{describe(source)}: {error}", source) from None


def _deserialize_and_build(prepared, entry, custom_objects, source):
    try:
        model = serialization.deserialize_layer(prepared, custom_objects)
    except (CheckpointError, WeightBudgetError):
        raise
    except Exception as error:   # a layer's from_config / constructor rejecting the config
        raise ConfigError(f"{describe(source)}: the model config cannot be rebuilt: "
                          f"{type(error).__name__}: {error}", source) from error
    if not (hasattr(model, "compile") and hasattr(model, "layers")):
        raise ConfigError(f"{describe(source)}: model_config describes a "
                          f"{type(model).__name__}, not a model", source)
    build_config = entry.get("build_config")
    if not model.built and isinstance(build_config, dict) and \
            build_config.get("input_shape") is not None:
        try:
            build_from_shape(model, build_config["input_shape"])
        except WeightBudgetError:
            raise
        except Exception as error:
            raise ConfigError(f"{describe(source)}: model '{model.name}' cannot be built "
                              f"for input shape {build_config['input_shape']}: "
                              f"{type(error).__name__}: {error}", source) from error
    return model


def build_from_shape(model, input_shape):
    """Create a subclassed model's weights by calling it once on zeros of
    ``input_shape`` (unknown sizes set to 1)."""
    from ...backends import no_grad

    def zeros(shape):
        if isinstance(shape, dict):
            return {key: zeros(value) for key, value in shape.items()}
        if shape and isinstance(shape[0], (list, tuple, dict)):
            return [zeros(item) for item in shape]
        return np.zeros(tuple(1 if s is None else int(s) for s in shape), dtype=model.dtype)

    with no_grad():
        model(zeros(input_shape), training=False)
    model.build_input_shape = without_batch(input_shape)


__all__ = ["build_from_shape", "build_model", "model_entry", "prepare", "to_json"]

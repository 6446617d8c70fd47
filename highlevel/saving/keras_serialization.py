"""``serialize_keras_object`` / ``deserialize_keras_object`` in Keras 3's schema, and the
model documents built on them: ``config.json`` of a ``.keras`` file, ``model.to_json()``
and ``lamina.models.model_from_json``.

An object is ``{"module", "class_name", "config", "registered_name"}`` (plus
``build_config`` / ``compile_config`` for models), a function ``{"module", "class_name":
"function", "config": name, "registered_name": name}``, NumPy arrays ``__numpy__``.
Deserializing resolves classes by ``registered_name`` / ``class_name`` through lamina's
registries, registered custom objects and ``custom_objects``: the ``module`` is only a
hint to which registry to search, never imported. Stored code (``__lambda__``) is never
run: refused in ``safe_mode`` as in Keras, and refused anyway otherwise.
"""

import inspect
import json
import types

import numpy as np

from ...backends.config import effective_safe_mode
from ...layers import serialization as layer_serialization
from ...layers.base import LAYERS, Layer
from ...layers.options.activations import ACTIVATIONS
from ..losses.losses import LOSSES
from ..metrics.metrics import METRICS
from ..optimizers.optimizer import OPTIMIZERS
from ..optimizers.schedules import SCHEDULES
from . import model_config, object_registration, serialization
from .errors import ConfigError

layer_serialization.add_keras_module(LOSSES, "keras.losses", keys=("loss",))
layer_serialization.add_keras_module(METRICS, "keras.metrics",
                                     keys=("metrics", "weighted_metrics"))
layer_serialization.add_keras_module(OPTIMIZERS, "keras.optimizers", keys=("optimizer",))
layer_serialization.add_keras_module(SCHEDULES, "keras.optimizers.schedules",
                                     keys=("learning_rate",))
# Registries of built-in functions, searched in this order for a function's name.
_FUNCTION_REGISTRIES = (ACTIVATIONS, LOSSES, METRICS)


# ---------------------------------------------------------------------------- serializing
def _registry_of(obj):
    """``(registry, Keras module)`` holding ``type(obj)`` (by identity), or None."""
    cls = type(obj)
    for kind_registry, module in layer_serialization.KERAS_MODULES:
        if cls.__name__ in kind_registry and kind_registry.lookup(cls.__name__) is cls:
            return kind_registry, module
    return None


def _serialize_function(function):
    """Keras 3's form of a function: its registered name (``"package>name"``, else its
    ``__name__``) under ``module`` "builtins"."""
    return {"module": "builtins", "class_name": "function",
            "config": object_registration.get_registered_name(function),
            "registered_name": "function"}


def serialize_keras_object(obj):
    """``obj`` as Keras 3 serializes it: plain values as they are, lists and dicts
    element by element, layers and models with their config (models also with
    ``build_config`` / ``compile_config``), other objects with ``get_config()``."""
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    if isinstance(obj, (list, tuple)):
        return [serialize_keras_object(item) for item in obj]
    if isinstance(obj, dict):
        return {key: serialize_keras_object(value) for key, value in obj.items()}
    if isinstance(obj, np.ndarray):
        return {"class_name": "__numpy__",
                "config": {"value": obj.tolist(), "dtype": obj.dtype.name}}
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, bytes):
        return {"class_name": "__bytes__", "config": {"value": obj.decode("utf-8")}}
    if _is_model(obj):
        return model_document(obj)
    if isinstance(obj, Layer):
        return layer_serialization.serialize(obj)
    if isinstance(obj, types.FunctionType):
        return _serialize_function(obj)
    if not hasattr(obj, "get_config"):
        raise TypeError(f"cannot serialize {obj!r} ({type(obj).__name__}): a serializable "
                        "object has a get_config() method")
    found = _registry_of(obj)
    entry = {"class_name": type(obj).__name__, "config": obj.get_config()}
    return layer_serialization.to_keras3(entry, found[0] if found else None)


def _is_model(obj):
    return isinstance(obj, Layer) and hasattr(obj, "compile") and hasattr(obj, "layers")


def compile_document(model):
    """Keras 3's ``compile_config`` of a compiled model (None otherwise)."""
    from .model_file import training_config
    training = training_config(model)
    if training is None:
        return None
    training = dict(training)
    training["optimizer"] = training.pop("optimizer_config")
    order = ("optimizer", "loss", "loss_weights", "metrics", "weighted_metrics",
             "run_eagerly", "steps_per_execution", "jit_compile")
    return layer_serialization.walk_config({key: training[key] for key in order})


def model_document(model, include_optimizer=True):
    """The Keras 3 serialization of a model: ``config.json`` of a ``.keras`` file."""
    entry = layer_serialization.to_keras3(model_config.model_entry(model),
                                          classes=layer_serialization.layer_classes(model))
    if model.built and "build_config" not in entry:
        shape = model.build_input_shape
        entry["build_config"] = {"input_shape": model_config.without_batch(shape)
                                 if shape is not None else None}
    compiled = compile_document(model) if include_optimizer else None
    if compiled is not None:
        entry["compile_config"] = compiled
    return entry


# ---------------------------------------------------------------------------- deserializing
_SPECIAL = {"__numpy__": lambda c: np.array(c["value"], dtype=c["dtype"]),
            "__tensor__": lambda c: np.array(c["value"], dtype=c["dtype"]),
            "__bytes__": lambda c: c["value"].encode("utf-8"),
            "__ellipsis__": lambda c: Ellipsis}


def _lambda_refused(safe_mode):
    if effective_safe_mode(safe_mode):
        return ValueError("Requested the deserialization of a Python lambda. This carries a "
                          "potential risk of arbitrary code execution and thus it is "
                          "disallowed in safe_mode (the default)")
    return ValueError("the config stores a Python lambda as code; lamina never runs code "
                      "from a config, even with safe_mode=False: pass the function in "
                      "custom_objects")


def _registries_for(module):
    """The registries to search for a class the entry places in ``module`` (all of them,
    the hinted one first)."""
    hinted = [r for r, m in layer_serialization.KERAS_MODULES if m == module]
    if module == "keras" or (isinstance(module, str) and module.startswith("keras.src.models")):
        hinted = [LAYERS]
    return hinted + [r for r, _ in layer_serialization.KERAS_MODULES if r not in hinted]


def _find_class(config, custom_objects):
    for kind_registry in _registries_for(config.get("module")):
        try:
            return kind_registry.lookup_entry(config, custom_objects)
        except ValueError:
            continue
    raise ValueError(f"cannot deserialize {config.get('class_name')!r}: it is neither a "
                     "built-in lamina class nor registered (register_keras_serializable) "
                     "nor in custom_objects")


def _find_function(config, custom_objects):
    from ...backends import registry
    name = config.get("config")
    found = registry.find_custom_object(config.get("registered_name"), custom_objects) or \
        registry.find_custom_object(name, custom_objects, by_suffix=True)
    if found is not None:
        return found
    for kind_registry in _FUNCTION_REGISTRIES:
        if isinstance(name, str) and name in kind_registry:
            return kind_registry.lookup(name)
    raise ValueError(f"cannot deserialize function {name!r}: register it with "
                     "register_keras_serializable or pass it in custom_objects")


def deserialize_keras_object(config, custom_objects=None, safe_mode=True, **kwargs):
    """The object a :func:`serialize_keras_object` config (or Keras') describes: layers
    and models rebuilt (and built / compiled from their ``build_config`` /
    ``compile_config``), other classes through ``from_config``, functions by name."""
    from ...backends import registry
    if config is None or isinstance(config, (int, float, bool)):
        return config
    if isinstance(config, str):
        found = registry.find_custom_object(config, custom_objects)
        return config if found is None else found
    if isinstance(config, (list, tuple)):
        return [deserialize_keras_object(item, custom_objects, safe_mode) for item in config]
    if not isinstance(config, dict):
        raise TypeError(f"cannot deserialize {config!r} ({type(config).__name__})")
    if "class_name" not in config or "config" not in config:
        return {key: deserialize_keras_object(value, custom_objects, safe_mode)
                for key, value in config.items()}
    class_name = config["class_name"]
    inner = config["config"] if config["config"] is not None else {}
    if class_name in _SPECIAL:
        return _SPECIAL[class_name](inner)
    if class_name == "__lambda__":
        raise _lambda_refused(safe_mode)
    if class_name == "function":
        return _find_function(config, custom_objects)
    cls = _find_class(config, custom_objects)
    if isinstance(cls, type) and issubclass(cls, Layer):
        return _deserialize_layer(config, custom_objects, safe_mode)
    if not isinstance(cls, type):
        return cls
    if "custom_objects" in inspect.signature(cls.from_config).parameters:
        return cls.from_config(dict(inner), custom_objects=custom_objects)
    return cls.from_config(dict(inner))


def _deserialize_layer(config, custom_objects, safe_mode, source=None, from_keras=True,
                       max_weight_values=None, compile=True):
    cls = _find_class(config, custom_objects)
    if model_config.is_model_class(cls):
        entry = {key: value for key, value in config.items() if key != "compile_config"}
        model = model_config.build_model(entry, custom_objects, source, from_keras,
                                         max_weight_values, safe_mode)
        compiled = config.get("compile_config")
        if compile and isinstance(compiled, dict):
            from .model_file import compile_from_config
            compile_from_config(model, compiled, custom_objects, source)
        return model
    prepared = model_config.prepare(config, custom_objects, source, from_keras,
                                    safe_mode=safe_mode)
    layer = serialization.deserialize_layer(prepared, custom_objects)
    shape = (config.get("build_config") or {}).get("input_shape")
    if shape is not None and not layer.built:
        layer.ensure_built(tuple(shape))
    return layer


def load_model_document(document, custom_objects=None, compile=True, safe_mode=True,
                        source=None, from_keras=True, max_weight_values=None):
    """A model from its Keras 3 serialization (``config.json``, ``to_json()``), compiled
    from its ``compile_config`` when ``compile``."""
    if not isinstance(document, dict) or not isinstance(document.get("class_name"), str):
        raise ConfigError("a model config is a {'class_name': ..., 'config': ...} object, "
                          f"got {type(document).__name__}", source)
    return _deserialize_layer(document, custom_objects, safe_mode, source, from_keras,
                              max_weight_values, compile)


def to_json(model, **kwargs):
    """``model.to_json()``: the Keras 3 serialization of the model as JSON text."""
    return json.dumps(model_document(model), default=model_config.json_default, **kwargs)


def model_from_json(json_string, custom_objects=None):
    """``lamina.models.model_from_json``: a model (not yet trained) from ``to_json()`` text
    or Keras' ``model.to_json()``."""
    return load_model_document(json.loads(json_string), custom_objects)


__all__ = ["compile_document", "deserialize_keras_object", "load_model_document",
           "model_document", "model_from_json", "serialize_keras_object", "to_json"]

"""Keras 3's object form of configs, and ``lamina.layers.serialize`` / ``deserialize``.

Keras 3 writes every object as ``{"module", "class_name", "config", "registered_name"}``:
built-in classes carry their public Keras namespace (``"keras.layers"``,
``"keras.initializers"``, ...) and ``registered_name`` None; other classes their Python
module and their registered name (``"package>name"``, or the class name). lamina's
configs name classes only (``{"class_name", "config"}``); :func:`to_keras3` adds the two
keys everywhere, generically: the class is found in the registry that the config key
implies (``*_initializer`` -> initializers, ``layers`` -> layers, ...), and each registry
knows its Keras namespace (:func:`add_keras_module`; the registries of losses, metrics
and optimizers join from ``highlevel``). Reading never uses ``module``: classes resolve by
``registered_name`` and ``class_name`` through the registries and custom objects only
(:meth:`Registry.lookup_entry`), so no module named in a file is ever imported.
"""

from ..backends import registry
from .base import LAYERS
from .options.constraints import CONSTRAINTS
from .options.dtype_policies import DTYPE_POLICIES
from .options.initializers import INITIALIZERS
from .options.regularizers import REGULARIZERS

_OWN_PACKAGE = __name__.split(".")[0]

# (registry, Keras namespace of its built-in classes), searched in this order when a key
# implies no registry.
KERAS_MODULES = [(LAYERS, "keras.layers"), (INITIALIZERS, "keras.initializers"),
                 (REGULARIZERS, "keras.regularizers"), (CONSTRAINTS, "keras.constraints")]
# Config keys whose value is an object of one kind.
KEY_REGISTRIES = {"layer": LAYERS, "layers": LAYERS, "forward_layer": LAYERS,
                  "backward_layer": LAYERS, "cell": LAYERS, "cells": LAYERS}
_SUFFIX_REGISTRIES = (("initializer", INITIALIZERS), ("regularizer", REGULARIZERS),
                      ("constraint", CONSTRAINTS))
# Built-in classes Keras writes outside their registry's namespace:
# class name -> (module, registered_name).
_KERAS_PLACES = {"Sequential": ("keras", None), "Model": ("keras", None),
                 "Functional": ("keras.src.models.functional", "Functional")}


def add_keras_module(kind_registry, module, keys=()):
    """Declare the Keras namespace of a registry's built-in classes (and config keys whose
    values it holds), for :func:`to_keras3`."""
    KERAS_MODULES.append((kind_registry, module))
    for key in keys:
        KEY_REGISTRIES[key] = kind_registry


def legacy_entry(layer):
    """``{"class_name", "config"}`` of a layer or a nested model; a class registered
    with ``register_keras_serializable`` is named ``"package>name"``, as Keras' ``.h5``
    writer does; objects that its ``get_config()`` returns as they are (a custom layer
    holding a sublayer or a regularizer) become entries of their own, as Keras
    serializes them."""
    registered = registry.GLOBAL_CUSTOM_NAMES.get(type(layer))
    return {"class_name": registered or layer.registered_class_name(),
            "config": _entries_for_objects(layer.get_config())}


def _entries_for_objects(value):
    """``value`` with every configurable object in it (layers, regularizers,
    initializers, constraints, at any depth of lists and dicts) as its entry."""
    if isinstance(value, dict):
        return {key: _entries_for_objects(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_entries_for_objects(item) for item in value]
    if hasattr(value, "registered_class_name") and hasattr(value, "get_config"):
        return serialize(value)
    if not isinstance(value, type) and callable(getattr(value, "get_config", None)):
        return {"class_name": type(value).__name__,
                "config": _entries_for_objects(value.get_config())}
    return value


add_keras_module(DTYPE_POLICIES, "keras", keys=("dtype",))


def _is_own(obj):
    module = getattr(obj, "__module__", None) or ""
    return module == _OWN_PACKAGE or module.startswith(_OWN_PACKAGE + ".")


def _registry_for(key):
    if key in KEY_REGISTRIES:
        return KEY_REGISTRIES[key]
    for suffix, kind_registry in _SUFFIX_REGISTRIES:
        if isinstance(key, str) and key.endswith(suffix):
            return kind_registry
    return None


def _describe(cls, class_name, kind_registry, module):
    """``(module, registered_name)`` of a class found in ``kind_registry``."""
    if _is_own(cls) and class_name in kind_registry and \
            kind_registry.lookup(class_name) is cls:
        return _KERAS_PLACES.get(class_name, (module, None))
    return (getattr(cls, "__module__", None),
            registry.GLOBAL_CUSTOM_NAMES.get(cls, getattr(cls, "__name__", class_name)))


def _place(class_name, hint, classes):
    """``(module, registered_name)`` Keras writes for ``class_name``: a class of
    ``classes`` (the layers being saved), else found through ``hint`` (or any
    registry)."""
    if class_name in classes:
        return _describe(classes[class_name], class_name, LAYERS, "keras.layers")
    candidates = [(r, m) for r, m in KERAS_MODULES if r is hint] + KERAS_MODULES
    for kind_registry, module in candidates:
        try:
            cls = kind_registry.lookup(class_name)
        except ValueError:
            continue
        return _describe(cls, class_name, kind_registry, module)
    return None, class_name


def layer_classes(layer):
    """``{registered class name: class}`` of ``layer`` and every layer inside it."""
    found, stack, seen = {}, [layer], set()
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        found.setdefault(item.registered_class_name(), type(item))
        stack.extend(item.tracked_layers())
        stack.extend(getattr(item, "layers", None) or [])
    return found


def to_keras3(value, hint=LAYERS, classes=None):
    """``value`` (a config, or an entry ``{"class_name", "config"}``) with every object
    entry in Keras 3's form; ``hint`` is the registry of a top-level entry, ``classes``
    the layer classes by name (:func:`layer_classes`) when known."""
    classes = classes or {}
    if isinstance(value, list):
        return [to_keras3(item, hint, classes) for item in value]
    if not isinstance(value, dict):
        return value
    if isinstance(value.get("class_name"), str) and "config" in value and \
            not value["class_name"].startswith("__"):
        layer_entry = hint is LAYERS
        class_name = value["class_name"]
        custom = registry.GLOBAL_CUSTOM_OBJECTS.get(class_name) if ">" in class_name \
            else None
        if "registered_name" in value:  # already in Keras 3's form (a nested object)
            module, registered_name = value.get("module"), value["registered_name"]
        elif custom is not None:        # a legacy "package>name": Keras 3 splits it
            module, registered_name = getattr(custom, "__module__", None), class_name
            class_name = getattr(custom, "__name__", class_name)
        else:
            module, registered_name = _place(class_name, hint,
                                             classes if layer_entry else {})
        inner = value["config"]
        result = {"module": module, "class_name": class_name,
                  "config": walk_config(inner, classes) if isinstance(inner, dict)
                  else inner,
                  "registered_name": registered_name}
        result.update({k: to_keras3(v, None) if k == "inbound_nodes" else v
                       for k, v in value.items() if k not in result})
        return result
    return walk_config(value, classes)


def walk_config(config, classes=None):
    return {key: to_keras3(item, _registry_for(key), classes) for key, item in config.items()}


def serialize(layer):
    """A layer in Keras 3's form (``keras.layers.serialize``), with its ``build_config``
    once built."""
    entry = to_keras3(legacy_entry(layer), classes=layer_classes(layer))
    shape = getattr(layer, "build_input_shape", None)
    if layer.built and isinstance(shape, (list, tuple)):
        entry["build_config"] = {"input_shape": list(shape)}
    return entry


def deserialize(config, custom_objects=None):
    """A layer from :func:`serialize` output or a ``{"class_name", "config"}`` dict
    (``keras.layers.deserialize``), built when the entry has a ``build_config``."""
    if not isinstance(config, dict) or not isinstance(config.get("class_name"), str):
        raise ValueError(f"lamina.layers.deserialize expects a dict with 'class_name' and "
                         f"'config', got {config!r}")
    cls = LAYERS.lookup_entry(config, custom_objects)
    inner = dict(config.get("config") or {})
    if hasattr(cls, "from_config_with_objects"):
        layer = cls.from_config_with_objects(inner, custom_objects)
    else:
        layer = cls.from_config(inner)
    shape = (config.get("build_config") or {}).get("input_shape")
    if shape is not None and not layer.built:
        layer.ensure_built(tuple(shape))
    return layer


__all__ = ["KERAS_MODULES", "add_keras_module", "deserialize", "layer_classes",
           "legacy_entry", "serialize", "to_keras3"]

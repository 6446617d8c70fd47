"""Custom objects, as ``keras.saving``: ``register_keras_serializable``,
``get_custom_objects``, ``custom_object_scope`` / ``CustomObjectScope``,
``get_registered_name`` and ``get_registered_object``.

The tables are the ones every lamina registry consults (:mod:`lamina.backends.registry`),
so a registered class resolves wherever a class name is looked up: model configs of
``.keras`` and ``.h5`` files, ``deserialize_keras_object``, ``lamina.layers.deserialize``,
losses, metrics, optimizers.
"""

import inspect

from ...backends import registry


def register_keras_serializable(package="Custom", name=None):
    """Decorator registering a class or function as ``"package>name"`` (``name`` defaults
    to its ``__name__``), so that configs naming it deserialize without
    ``custom_objects``.

    Example:
        >>> @lamina.saving.register_keras_serializable(package="my_package")
        ... class MyDense(lamina.layers.Dense):
        ...     pass
        >>> lamina.saving.get_registered_name(MyDense)
        'my_package>MyDense'
    """
    if not isinstance(package, str) or ">" in package:
        raise ValueError(f"register_keras_serializable: package must be a string without "
                         f"'>', got {package!r}")

    def decorate(arg):
        class_name = name if name is not None else arg.__name__
        registered_name = f"{package}>{class_name}"
        if inspect.isclass(arg) and not hasattr(arg, "get_config"):
            raise ValueError(f"register_keras_serializable: class {arg.__name__} cannot be "
                             "serialized: it has no get_config() method")
        registry.GLOBAL_CUSTOM_OBJECTS[registered_name] = arg
        registry.GLOBAL_CUSTOM_NAMES[arg] = registered_name
        return arg

    return decorate


def get_custom_objects():
    """The global ``{name: object}`` dict of registered custom objects (mutable, as in
    Keras: ``get_custom_objects()["MyLayer"] = MyLayer`` registers a name)."""
    return registry.GLOBAL_CUSTOM_OBJECTS


class CustomObjectScope:
    """``with CustomObjectScope({"MyLayer": MyLayer}):`` makes the objects resolvable by
    name inside the block (in the calling thread), as ``keras.saving.CustomObjectScope``;
    blocks nest, and the previous objects come back on exit."""

    def __init__(self, custom_objects):
        if custom_objects is not None and not isinstance(custom_objects, dict):
            raise TypeError(f"CustomObjectScope expects a dict of custom objects, got "
                            f"{type(custom_objects).__name__}")
        self.custom_objects = dict(custom_objects or {})
        self._backup = None

    def __enter__(self):
        self._backup = registry.SCOPE.objects
        registry.SCOPE.objects = {**(self._backup or {}), **self.custom_objects}
        return self

    def __exit__(self, *exc_info):
        registry.SCOPE.objects = self._backup


custom_object_scope = CustomObjectScope


def get_registered_name(obj):
    """The name ``obj`` is registered under (``"package>name"``), else its ``__name__``."""
    found = registry.GLOBAL_CUSTOM_NAMES.get(obj)
    return found if found is not None else obj.__name__


def get_registered_object(name, custom_objects=None, module_objects=None):
    """The object registered as ``name``: the thread's scope, the global registrations,
    ``custom_objects``, then ``module_objects``; None when none has it."""
    found = registry.find_custom_object(name, custom_objects)
    if found is None and module_objects and name in module_objects:
        found = module_objects[name]
    return found


__all__ = ["CustomObjectScope", "custom_object_scope", "get_custom_objects",
           "get_registered_name", "get_registered_object", "register_keras_serializable"]

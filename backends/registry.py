"""Name -> class tables used to deserialize configs, with errors that list known names.

Layers, losses, metrics, optimizers, callbacks, activations, initializers and regularizers
each keep a :class:`Registry`; ``register`` adds a class under its class name (and any
aliases), ``get`` resolves a string, a config dict or an instance.

Custom objects (Keras' ``register_keras_serializable``, ``get_custom_objects`` and
``custom_object_scope``) live here too, once for every kind: :data:`GLOBAL_CUSTOM_OBJECTS`
(``{"package>name": object}``), :data:`GLOBAL_CUSTOM_NAMES` (``{object: "package>name"}``)
and the calling thread's scope. Every :meth:`Registry.lookup` consults them, in Keras'
order: the scope, the global registrations, the ``custom_objects`` argument, then the
table. Names match exactly, as Keras' ``get_registered_object``: a bare class name does
not find a class registered as ``"package>name"`` (only a function saved by Keras <= 3.6
under its bare name is matched by suffix, in ``deserialize_keras_object``).
"""

import threading

GLOBAL_CUSTOM_OBJECTS = {}
GLOBAL_CUSTOM_NAMES = {}


class _Scope(threading.local):
    """The custom objects of the calling thread's ``custom_object_scope`` blocks."""

    objects = None


SCOPE = _Scope()


def effective_custom_objects(custom_objects=None):
    """``{name: object}`` a lookup sees: ``custom_objects`` overridden by the global
    registrations, overridden by the thread's scope (Keras' precedence)."""
    return {**(custom_objects or {}), **GLOBAL_CUSTOM_OBJECTS, **(SCOPE.objects or {})}


def find_custom_object(name, custom_objects=None, by_suffix=False):
    """The custom object called ``name`` (a registered ``"package>name"`` or a
    ``custom_objects`` key; with ``by_suffix`` also a bare name ending one), or None."""
    if not isinstance(name, str):
        return None
    objects = effective_custom_objects(custom_objects)
    if name in objects:
        return objects[name]
    if by_suffix and ">" not in name:
        suffix = f">{name}"
        for key, obj in objects.items():
            if key.endswith(suffix):
                return obj
    return None


class Registry:
    """A table of named objects of one kind (``"layer"``, ``"loss"``, ...).

    Example:
        >>> LOSSES = Registry("loss")
        >>> @LOSSES.register("mse", "mean_squared_error")
        ... class MeanSquaredError: ...
    """

    def __init__(self, kind):
        self.kind = kind
        self._table = {}

    def register(self, *aliases):
        """Class decorator: register under the class name and every alias."""

        def decorate(obj):
            for name in (obj.__name__, *aliases):
                self._table[name] = obj
            return obj

        return decorate

    def add(self, name, obj):
        """Register ``obj`` under ``name``."""
        self._table[name] = obj

    def names(self):
        """Sorted list of every registered name."""
        return sorted(self._table)

    def __contains__(self, name):
        return name in self._table

    def lookup(self, name, custom_objects=None):
        """The object registered as ``name`` (``custom_objects`` checked first).

        Raises ``ValueError`` naming the kind and listing the known names.
        """
        found = find_custom_object(name, custom_objects)
        if found is not None:
            return found
        try:
            return self._table[name]
        except (KeyError, TypeError):
            raise ValueError(
                f"unknown {self.kind} {name!r}; known names: {', '.join(self.names())}"
                + (". Pass custom objects with custom_objects={...}"
                   if self.kind in ("layer", "class") else "")
            ) from None

    def lookup_entry(self, entry, custom_objects=None):
        """The class a Keras 3 entry names: its ``registered_name`` (``"package>name"``)
        when that is a custom object, else its ``class_name`` (never its ``module``)."""
        found = find_custom_object(entry.get("registered_name"), custom_objects)
        return found if found is not None else self.lookup(entry["class_name"],
                                                           custom_objects)

    def resolve(self, identifier, base, expected):
        """``identifier`` as an object: an instance of ``base`` or another callable as is,
        a registered name instantiated with no arguments, a ``{"class_name", "config"}``
        dict through ``from_config``.

        Raises ``TypeError`` saying the kind must be ``expected``.
        """
        if isinstance(identifier, base):
            return identifier
        if isinstance(identifier, str):
            return self.lookup(identifier)()
        if isinstance(identifier, dict):
            return self.lookup(identifier["class_name"]).from_config(
                identifier.get("config", {}))
        if callable(identifier):
            return identifier
        raise TypeError(f"{self.kind} must be {expected}, got {identifier!r}")

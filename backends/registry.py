"""Name -> class tables used to deserialize configs, with errors that list known names.

Layers, losses, metrics, optimizers, callbacks, activations, initializers and regularizers
each keep a :class:`Registry`; ``register`` adds a class under its class name (and any
aliases), ``get`` resolves a string, a config dict or an instance.
"""


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
        if custom_objects and name in custom_objects:
            return custom_objects[name]
        try:
            return self._table[name]
        except (KeyError, TypeError):
            raise ValueError(
                f"unknown {self.kind} {name!r}; known names: {', '.join(self.names())}"
                + (". Pass custom objects with custom_objects={...}"
                   if self.kind in ("layer", "class") else "")
            ) from None

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

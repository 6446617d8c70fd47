"""Optimizers by identifier: ``get``, ``serialize`` and ``deserialize``, as in
``keras.optimizers``. Names resolve through the ``OPTIMIZERS`` registry, case-insensitively
(``"adam"``, ``"Adam"``, Keras 2.11+'s ``"Custom>Adam"``), so a new optimizer module that
registers its class is found here without changes."""

from .optimizer import OPTIMIZERS, Optimizer


def _lookup(name, custom_objects=None):
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    if isinstance(name, str):
        name = name.split(">")[-1]                  # Keras 2.11+ "Custom>Adam"
        by_lower_name = {known.lower(): known for known in OPTIMIZERS.names()}
        name = by_lower_name.get(name.lower(), name)
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

"""The config protocol of the small configurable objects (initializers, regularizers):
``get_config``/``from_config`` and Keras' ``{"class_name", "config"}`` schema."""


class Configurable:
    """Base class: ``get_config()`` returns the constructor arguments (none by default),
    ``from_config(config)`` rebuilds the object from them."""

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def serialize(obj):
    """``{"class_name", "config"}`` of ``obj`` (Keras' schema)."""
    return {"class_name": type(obj).__name__, "config": obj.get_config()}


def deserialize(registry, config, custom_objects=None):
    """The object ``config`` names in ``registry``: a registered name (built with no
    arguments) or a ``{"class_name", "config"}`` dict (Keras 2 or 3) through
    ``from_config``; ``custom_objects`` maps custom class names to classes."""
    if isinstance(config, str):
        return registry.lookup(config, custom_objects)()
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"cannot deserialize a {registry.kind} from {config!r}: expected a "
                         "name or a dict with 'class_name' and 'config'")
    return registry.lookup(config["class_name"], custom_objects).from_config(
        dict(config.get("config") or {}))

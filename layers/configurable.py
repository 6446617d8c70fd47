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

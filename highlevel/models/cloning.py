"""``clone_model``: a new model with the same architecture and fresh weights, as
``keras.models.clone_model`` (through the model's config, reusing Lambda functions)."""

from ...layers.base import Layer
from ..saving import serialization


def clone_model(model, custom_objects=None):
    """A new model with the same architecture and freshly initialized weights
    (``keras.models.clone_model``); ``set_weights(model.get_weights())`` copies values."""
    entry = serialization.serialize_layer(model)
    # As Keras, the classes the model is made of need no registration to be cloned.
    objects = {}
    pending = [model]
    while pending:
        layer = pending.pop()
        if type(layer).__name__ == layer.registered_class_name():
            objects.setdefault(type(layer).__name__, type(layer))
        pending.extend(layer.tracked_layers())
    objects.update(custom_objects or {})
    _reuse_lambda_functions(model, entry)
    clone = serialization.deserialize_layer(entry, objects)
    if not clone.built and model.built and model.build_input_shape is not None:
        clone.ensure_built(model.build_input_shape)
    return clone


def _reuse_lambda_functions(layer, entry):
    """A config names a Lambda's function (no code is serialized); a clone made in memory
    reuses the function object itself, as Keras' clone does."""
    config = entry.get("config")
    if not isinstance(config, dict):
        return
    if entry.get("class_name") == "Lambda" and callable(getattr(layer, "function", None)):
        config["function"] = layer.function
    by_name = {sub.name: sub for sub in layer.tracked_layers()}
    for sub_entry in config.get("layers") or []:
        sub = by_name.get(sub_entry.get("config", {}).get("name")) \
            if isinstance(sub_entry, dict) else None
        if sub is not None:
            _reuse_lambda_functions(sub, sub_entry)
    if isinstance(config.get("layer"), dict) and isinstance(getattr(layer, "layer", None), Layer):
        _reuse_lambda_functions(layer.layer, config["layer"])

"""A weight family's three Keras options: ``<family>_initializer``,
``<family>_regularizer`` and ``<family>_constraint`` (families: ``kernel``, ``bias``,
``recurrent``, ``embeddings``, ``beta``, ``gamma``, ``depthwise``, ``pointwise``).

Example:
    >>> store(layer, "kernel", "glorot_uniform", None, None)   # in __init__
    >>> config(layer, "kernel", "bias")                        # in get_config
"""

from . import constraints, initializers, regularizers


def store(layer, family, initializer, regularizer, constraint):
    """Resolve the options of ``family`` (names, configs or objects) onto ``layer``."""
    setattr(layer, f"{family}_initializer", initializers.get(initializer))
    setattr(layer, f"{family}_regularizer", regularizers.get(regularizer))
    setattr(layer, f"{family}_constraint", constraints.get(constraint))


def config(layer, *families):
    """The serialized options of ``families`` (Keras' config keys and values)."""
    result = {}
    for option, module in (("initializer", initializers), ("regularizer", regularizers),
                           ("constraint", constraints)):
        for family in families:
            key = f"{family}_{option}"
            result[key] = module.serialize(getattr(layer, key))
    return result

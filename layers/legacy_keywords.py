"""Keras' legacy shape keywords on layers: ``input_shape=`` (accepted by every layer, with
Keras 3's warning), ``input_dim=`` and ``batch_input_shape=``; the first layer of a
``Sequential`` model that has one builds the model's ``Input`` from it."""

import functools
import inspect
import warnings

_LEGACY_SHAPE_KEYWORDS = ("input_dim", "batch_input_shape")
INPUT_SHAPE_WARNING = ("Do not pass an `input_shape`/`input_dim` argument to a layer. When "
                       "using Sequential models, prefer using an `Input(shape)` object as "
                       "the first layer in the model instead.")


def accept_legacy_shape_keywords(init):
    """Wrap a layer class's ``__init__`` (once, at class creation) so that it also takes
    the legacy keywords ``input_dim=n`` (Keras 3: ``input_shape=(n,)``) and
    ``batch_input_shape=(batch, ...)`` (Keras 2; keeps a fixed batch size, as stateful
    recurrent layers need), unless the class names them itself (``Embedding(input_dim)``).
    A Sequential model whose first layer has either builds its ``Input`` from them."""
    parameters = inspect.signature(init).parameters
    captured = [k for k in _LEGACY_SHAPE_KEYWORDS if k not in parameters]
    if not captured:
        return init

    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        legacy = {k: kwargs.pop(k) for k in captured if k in kwargs}
        init(self, *args, **kwargs)
        if legacy.get("batch_input_shape") is not None:
            self._batch_input_shape = tuple(legacy["batch_input_shape"])
        elif legacy.get("input_dim") is not None:
            warnings.warn(INPUT_SHAPE_WARNING, stacklevel=2)
            self._batch_input_shape = (None, int(legacy["input_dim"]))

    return __init__

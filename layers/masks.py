"""Masks as in Keras 3: they travel on the tensors.

A layer that makes or passes on a mask attaches it to its outputs as ``_keras_mask`` (a
boolean Tensor, or a SymbolicTensor on symbolic outputs); ``Layer.__call__`` hands the
mask attached to the inputs to ``call(inputs, mask=...)`` (or to ``{argument}_mask`` when
the call has several tensor arguments, as ``MultiHeadAttention``'s ``query_mask``) and to
``compute_mask``. So a mask reaches its consumer in Sequential, functional and subclassed
models and in plain eager calls alike.
"""

import warnings

from ..backends import no_grad
from ..backends.autodiff import Tensor
from .symbolic import SymbolicTensor, flatten, is_shape, map_structure, merge_traced_shapes, \
    placeholders


def attached_mask(inputs):
    """The mask a masking layer attached to ``inputs`` (Keras' ``_keras_mask``): a Tensor
    (a SymbolicTensor for symbolic inputs), a list with one entry per input of a list, or
    None when no input carries one."""
    if isinstance(inputs, (list, tuple)):
        masks = [getattr(x, "_keras_mask", None) for x in inputs]
        return masks if any(m is not None for m in masks) else None
    return getattr(inputs, "_keras_mask", None)


def attach_masks(outputs, masks):
    """Attach ``masks`` (one, or one per output) to the outputs that carry none yet, as
    Keras 3 does after each call of a layer that supports masking."""
    if masks is None:
        return
    flat = flatten(outputs)
    flat_masks = flatten(masks) if isinstance(masks, (list, tuple)) else [masks] * len(flat)
    for output, mask in zip(flat, flat_masks):
        if mask is None or getattr(output, "_keras_mask", None) is not None:
            continue
        if isinstance(output, SymbolicTensor):
            output._keras_mask = mask
        elif isinstance(output, Tensor):
            output._keras_mask = mask if isinstance(mask, Tensor) else Tensor(mask)


def fill_argument_masks(layer, values, kwargs):
    """Set ``kwargs[f"{argument}_mask"]`` from the masks attached to the call's positional
    ``values``, for the arguments the layer's call names that way."""
    for position, mask_name in layer.call_mask_arguments:
        if position < len(values) and kwargs.get(mask_name) is None:
            mask = attached_mask(values[position])
            if mask is not None:
                kwargs[mask_name] = mask


def warn_mask_dropped(layer):
    """Keras 3's warning when a layer that does not support masking receives a mask."""
    warnings.warn(f"Layer '{layer.name}' (of type {type(layer).__name__}) was passed an "
                  "input with a mask attached to it. However, this layer does not support "
                  "masking and will therefore destroy the mask information. Downstream "
                  "layers will not see the mask.", stacklevel=3)


def _traced_mask_shapes(layer, inputs, mask):
    """The shapes of ``layer.compute_mask``'s masks for symbolic ``inputs`` and ``mask``
    (a shape, a list with None where an output has no mask, or None), found by running it
    on placeholders with unknown axes 2 and then 3."""
    traced = []
    for unknown in (2, 3):
        with no_grad():
            masks = layer.compute_mask(placeholders(inputs, unknown),
                                       placeholders(mask, unknown))
        if masks is None:
            return None
        traced.append(map_structure(lambda m: None if m is None else tuple(m.shape), masks))
    if not isinstance(traced[0], list):
        return merge_traced_shapes(*traced)
    return [None if a is None else merge_traced_shapes(a, b) for a, b in zip(*traced)]


def attach_symbolic_masks(layer, inputs, outputs, mask):
    """Attach symbolic masks to a symbolic call's outputs, as the eager call will attach
    real ones (Keras 3 keeps ``_keras_mask`` on symbolic tensors too)."""
    if layer.overrides_compute_mask:
        shapes = _traced_mask_shapes(layer, inputs, mask)
        if shapes is None:
            return
        masks = (SymbolicTensor(shapes, "bool") if is_shape(shapes) else
                 [None if s is None else SymbolicTensor(s, "bool") for s in shapes])
        attach_masks(outputs, masks)
    elif layer.supports_masking and mask is not None:
        attach_masks(outputs, mask)

"""Scaled dot-product attention (``keras.ops.dot_product_attention``), built from
differentiable ops (einsum, softmax, where), with Keras' masking rules."""

import math

from .core import data_of, index_data, xp
from .elementwise import tanh
from .logic import where
from .math import add, multiply
from .nn import softmax
from .products import einsum

_LARGE_NEGATIVE = -0.7 * 3.38953e38        # Keras' masked-logit value (float32)


def dot_product_attention(query, key, value, bias=None, mask=None, scale=None,
                          is_causal=False, flash_attention=None, attn_logits_soft_cap=None):
    """``softmax(q k^T * scale + bias, masked) v`` over 4-d ``(batch, length, heads,
    head_dim)`` inputs; ``mask`` (boolean, broadcastable to ``(batch, heads, target,
    source)``) keeps the True positions, ``is_causal`` also hides later positions.
    ``scale`` defaults to ``1 / sqrt(head_dim)``; ``attn_logits_soft_cap`` applies
    ``cap * tanh(logits / cap)``. Flash attention is not available."""
    if flash_attention:
        raise ValueError("dot_product_attention: flash attention is not supported by lamina")
    shapes = [tuple(data_of(t).shape) for t in (query, key, value)]
    if any(len(s) != 4 for s in shapes):
        raise ValueError(f"dot_product_attention expects 4-d (batch, length, heads, "
                         f"head_dim) inputs, got shapes {shapes}")
    heads, kv_heads = shapes[0][2], shapes[1][2]
    if heads != kv_heads:
        raise ValueError(f"dot_product_attention: query has {heads} heads, key/value "
                         f"{kv_heads}; grouped-query attention is not supported")
    scale = 1.0 / math.sqrt(shapes[1][-1]) if scale is None else scale
    logits = multiply(einsum("btnh,bsnh->bnts", query, key), scale)
    if attn_logits_soft_cap is not None:
        logits = multiply(tanh(multiply(logits, 1.0 / attn_logits_soft_cap)),
                          attn_logits_soft_cap)
    if bias is not None:
        logits = add(logits, bias)
    keep = None if mask is None else index_data(mask).astype(bool)
    if is_causal:
        target, source = shapes[0][1], shapes[1][1]
        causal = xp().tril(xp().ones((target, source), dtype=bool))
        keep = causal if keep is None else keep & causal
    if keep is not None:
        logits = where(keep, logits, _LARGE_NEGATIVE)
    return einsum("bnts,bsnh->btnh", softmax(logits, axis=-1), value)

"""Attention layers: ``MultiHeadAttention`` (Vaswani et al., 2017, Keras 3's weight layout)
and ``Attention`` (Luong-style dot-product attention).

Masks are boolean, ``True`` = attend. Masked scores get a large negative bias (-1e9, as
Keras) before the softmax; the probabilities are then multiplied by the mask so that a
fully masked row attends to nothing.
"""

import math

from ..backends import ops, state
from ..backends.random import SeededStream
from ..backends.autodiff import Tensor
from ..backends.ops.attention_core import (attention_core, packed_attention_core,
                                           packed_projection)
from ..backends.ops.core import index_data
from .options import initializers as initializers_module
from .options import regularizers as regularizers_module
from .options import weight_options
from .base import LAYERS, Layer

_LARGE_NEGATIVE = -1e9


def _bool(mask):
    return None if mask is None else index_data(mask).astype(bool)


def _and(*masks):
    result = None
    for mask in masks:
        if mask is not None:
            result = mask if result is None else result & mask
    return result


def _masked_softmax(scores, keep):
    """Softmax over the last axis with ``keep`` (broadcastable bool array) applied."""
    if keep is None:
        return ops.softmax(scores, axis=-1)
    keep_float = keep.astype(scores.dtype)
    biased = ops.add(scores, (1 - keep_float) * _LARGE_NEGATIVE)
    return ops.multiply(ops.softmax(biased, axis=-1), keep_float)


def _causal_mask(query_length, key_length):
    xp = state.backend().xp
    rows = xp.arange(query_length)[:, None]
    cols = xp.arange(key_length)[None, :]
    return (rows >= cols)[None]                                   # (1, T, S)


class _HeadProjection(Layer):
    """Keras' ``EinsumDense`` as used inside MultiHeadAttention: contracts the last
    ``contract`` axes of the input with a kernel of shape ``(*in_dims, *out_dims)`` and adds
    a bias of shape ``out_dims``. Named ``query``, ``key``, ``value``, ``attention_output``.
    """

    def __init__(self, name, out_dims, contract, owner, use_bias, kernel_initializer,
                 bias_initializer, kernel_regularizer, bias_regularizer, kernel_constraint,
                 bias_constraint, dtype):
        super().__init__(name=name, dtype=dtype)
        # ``_outer`` is the one attribute name Layer does not track as a sublayer.
        self.out_dims, self.contract, self._outer = tuple(out_dims), contract, owner
        self.use_bias = use_bias
        self._settings = (kernel_initializer, bias_initializer, kernel_regularizer,
                          bias_regularizer, kernel_constraint, bias_constraint)

    def build(self, input_shape):
        in_dims = tuple(input_shape[-self.contract:])
        if any(d is None for d in in_dims):
            raise ValueError(f"Layer '{self._outer.name}' needs known feature dimensions, "
                             f"got input shape {tuple(input_shape)}")
        k_init, b_init, k_reg, b_reg, k_con, b_con = self._settings
        if isinstance(k_init, initializers_module.Initializer):   # a fresh copy, as Keras
            k_init = type(k_init).from_config(k_init.get_config())
        self.kernel = self.add_weight(in_dims + self.out_dims, k_init,
                                      regularizer=k_reg, constraint=k_con, name="kernel")
        self.bias = (self.add_weight(self.out_dims, b_init, regularizer=b_reg,
                                     constraint=b_con, name="bias") if self.use_bias else None)
        for weight in self.weights:
            weight.path = f"{self._outer.name}/{self.name}/{weight.name}"
        self._outer.sync_requires_grad(True)   # a frozen attention layer freezes these
        self.in_size = math.prod(in_dims)
        self.out_size = math.prod(self.out_dims)
        self.built = True

    def call(self, inputs):
        lead = inputs.shape[:-self.contract]
        flat = ops.reshape(inputs, (-1, self.in_size))
        kernel = ops.reshape(self.kernel, (self.in_size, self.out_size))
        bias = None if self.bias is None else ops.reshape(self.bias, (self.out_size,))
        return ops.reshape(ops.dense(flat, kernel, bias), lead + self.out_dims)


@LAYERS.register()
class MultiHeadAttention(Layer):
    """Multi-head attention, as ``keras.layers.MultiHeadAttention``.

    Args:
        num_heads: number of heads ``H``.
        key_dim: size of each head for query and key.
        value_dim: size of each head for value (default ``key_dim``).
        dropout: dropout rate on the attention probabilities (training only).
        use_bias: biases in the four projections.
        output_shape: trailing output shape (default: the query's last dimension).
        attention_axes: only ``None`` (attend over every axis between batch and features)
            or the equivalent explicit axes.
        kernel_initializer, bias_initializer, *_regularizer, *_constraint: for the
            projections.
        seed: seed of the dropout.

    Call arguments: ``query`` (B, T, D), ``value`` (B, S, Dv), ``key`` (B, S, Dk; default
    ``value``), ``attention_mask`` (B, T, S) bool, ``query_mask``/``value_mask``/``key_mask``
    (B, T)/(B, S) bool (``mask`` is the query mask a masked input brings),
    ``return_attention_scores``, ``training``, ``use_causal_mask``.

    Weights, in order: query kernel (D, H, key_dim) and bias (H, key_dim); key kernel
    (Dk, H, key_dim) and bias; value kernel (Dv, H, value_dim) and bias; attention_output
    kernel (H, value_dim, D_out) and bias (D_out,).
    """

    supports_masking = True

    def __init__(self, num_heads, key_dim, value_dim=None, dropout=0.0, use_bias=True,
                 output_shape=None, attention_axes=None, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 seed=None, flash_attention=None, name=None, trainable=True, dtype=None,
                 input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        for argument, value in (("num_heads", num_heads), ("key_dim", key_dim),
                                ("value_dim", key_dim if value_dim is None else value_dim)):
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"Layer '{self.name}' (MultiHeadAttention) needs a positive "
                                 f"int {argument}, got {value!r}")
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"Layer '{self.name}' (MultiHeadAttention) needs dropout in "
                             f"[0, 1), got {dropout!r}")
        self.num_heads, self.key_dim = num_heads, key_dim
        self.value_dim = value_dim or key_dim
        self.dropout, self.use_bias, self.seed = float(dropout), bool(use_bias), seed
        if isinstance(output_shape, int):
            output_shape = (output_shape,)
        self._output_shape = tuple(output_shape) if output_shape else None
        if isinstance(attention_axes, int):
            attention_axes = (attention_axes,)
        self.attention_axes = None if attention_axes is None else tuple(attention_axes)
        self.flash_attention = flash_attention
        weight_options.store(self, "kernel", kernel_initializer, kernel_regularizer,
                             kernel_constraint)
        weight_options.store(self, "bias", bias_initializer, bias_regularizer, bias_constraint)
        self.activity_regularizer = regularizers_module.get(activity_regularizer)
        self._stream = SeededStream(seed)
        self._query_dense = self._projection("query", (num_heads, key_dim), 1)
        self._key_dense = self._projection("key", (num_heads, key_dim), 1)
        self._value_dense = self._projection("value", (num_heads, self.value_dim), 1)
        self._output_dense = None   # needs the query's last dimension: made in build

    def _projection(self, name, out_dims, contract):
        return _HeadProjection(name, out_dims, contract, self, self.use_bias,
                               self.kernel_initializer, self.bias_initializer,
                               self.kernel_regularizer, self.bias_regularizer,
                               self.kernel_constraint, self.bias_constraint, self.dtype_policy)

    # Keras' public names of the projections (also the weights-file group names).
    query_dense = property(lambda self: self._query_dense)
    key_dense = property(lambda self: self._key_dense)
    value_dense = property(lambda self: self._value_dense)
    output_dense = property(lambda self: self._output_dense)

    def build(self, query_shape, value_shape=None, key_shape=None):
        """Create the weights (key/value ones on the first call unless their shapes are
        given here, since ``__call__`` builds from the query's shape alone)."""
        rank = len(query_shape)
        if rank < 3:
            raise ValueError(f"Layer '{self.name}' (MultiHeadAttention) expects query of "
                             f"rank >= 3 (batch, ..., features), got shape "
                             f"{tuple(query_shape)}")
        default_axes = tuple(range(1, rank - 1))
        if self.attention_axes is not None and tuple(
                a if a >= 0 else rank + a for a in self.attention_axes) != default_axes:
            raise ValueError(f"Layer '{self.name}' (MultiHeadAttention) supports only "
                             f"attention_axes=None (all of {default_axes}), got "
                             f"{self.attention_axes}")
        self._query_dense.ensure_built(tuple(query_shape))
        if self._output_dense is None:
            self._output_dense = self._projection(
                "attention_output", self._output_shape or (query_shape[-1],), 2)
            self._output_dense.ensure_built((None, self.num_heads, self.value_dim))
        if value_shape is not None:
            self._build_key_value(value_shape, key_shape)
        self.built = True

    def _build_key_value(self, value_shape, key_shape):
        key_shape = value_shape if key_shape is None else key_shape
        if tuple(value_shape[1:-1]) != tuple(key_shape[1:-1]):
            raise ValueError(f"Layer '{self.name}' (MultiHeadAttention) needs value and key "
                             f"shapes equal except on the last axis, got {tuple(value_shape)}"
                             f" and {tuple(key_shape)}")
        self._key_dense.ensure_built(tuple(key_shape))
        self._value_dense.ensure_built(tuple(value_shape))

    def call(self, query, value, key=None, query_mask=None, value_mask=None, key_mask=None,
             attention_mask=None, return_attention_scores=False, training=None,
             use_causal_mask=False, mask=None):
        key = value if key is None else key
        if not self._key_dense.built:
            self._build_key_value(value.shape, key.shape)
        batch, d_query = query.shape[0], query.shape[1:-1]
        t_len, s_len = math.prod(d_query), math.prod(value.shape[1:-1])
        if tuple(key.shape[1:-1]) != tuple(value.shape[1:-1]) or key.shape[0] != batch \
                or value.shape[0] != batch:
            raise ValueError(f"Layer '{self.name}' (MultiHeadAttention) got query, value, key "
                             f"of shapes {query.shape}, {value.shape}, {key.shape}: batch "
                             "sizes and the key/value sequence axes must match")
        keep = self._attention_keep(batch, t_len, s_len, query_mask if query_mask is not None
                                    else mask, value_mask, key_mask if key is not value
                                    else None, attention_mask, use_causal_mask)

        dropout = self.dropout if training else 0.0
        scale = 1.0 / math.sqrt(float(self.key_dim))
        if query is value and key is value and not return_attention_scores:
            # Self-attention: the three projections as one GEMM (see _packed_projection).
            context = packed_attention_core(
                self._packed_projection(query), self.num_heads, self.key_dim,
                self.value_dim, scale, keep, dropout,
                self._random_generator() if dropout else None)
            return self._output_dense(ops.reshape(
                context, (batch, *d_query, self.num_heads, self.value_dim)))

        def flat(projected, size):                     # (B, ..., H, k) -> (B, L, H, k)
            return ops.reshape(projected, (batch, -1, self.num_heads, size))

        q = flat(self._query_dense(query), self.key_dim)
        k = flat(self._key_dense(key), self.key_dim)
        v = flat(self._value_dense(value), self.value_dim)
        if not return_attention_scores:             # one fused op (no scores to return)
            context = attention_core(q, k, v, scale, keep, dropout,
                                     self._random_generator() if dropout else None)
            return self._output_dense(ops.reshape(
                context, (batch, *d_query, self.num_heads, self.value_dim)))
        q, k, v = (ops.transpose(a, (0, 2, 1, 3)) for a in (q, k, v))   # (B, H, L, k)
        q = ops.multiply(q, scale)
        scores = ops.matmul(q, ops.transpose(k, (0, 1, 3, 2)))        # (B, H, T, S)
        probabilities = _masked_softmax(scores, None if keep is None else keep[:, None])
        attended = probabilities
        if dropout:
            attended = ops.dropout(probabilities, dropout, self._random_generator())
        context = ops.transpose(ops.matmul(attended, v), (0, 2, 1, 3))  # (B, T, H, vd)
        context = ops.reshape(context, (batch, *d_query, self.num_heads, self.value_dim))
        scores_shape = (batch, self.num_heads, *d_query, *value.shape[1:-1])
        return self._output_dense(context), ops.reshape(probabilities, scores_shape)

    def _packed_projection(self, inputs):
        """The query, key and value projections of ``inputs`` as ONE dense op:
        (B, ..., D) -> (B, L, H * (2 key_dim + value_dim)), their kernels (and biases)
        joined on the output axis for this call (the weights stay three variables)."""
        projections = (self._query_dense, self._key_dense, self._value_dense)
        kernels = [ops.reshape(p.kernel, (p.in_size, p.out_size)) for p in projections]
        biases = None if not self.use_bias else [
            ops.reshape(p.bias, (p.out_size,)) for p in projections]
        flat = ops.reshape(inputs, (inputs.shape[0], -1, inputs.shape[-1]))
        return packed_projection(flat, kernels, biases)

    def _attention_keep(self, batch, t_len, s_len, query_mask, value_mask, key_mask,
                        attention_mask, use_causal_mask):
        """The (B, T, S) boolean attention mask from every mask given, or None."""
        keep = None
        if query_mask is not None:
            keep = _bool(query_mask).reshape(batch, t_len, 1)
        for source in (value_mask, key_mask):
            if source is not None:
                keep = _and(keep, _bool(source).reshape(batch, 1, s_len))
        if use_causal_mask:
            keep = _and(keep, _causal_mask(t_len, s_len))
        if attention_mask is not None:
            given = _bool(attention_mask)
            given = given.reshape((given.shape[0] if given.ndim > 2 else 1, t_len, s_len))
            keep = _and(keep, given)
        if keep is not None:
            keep = state.backend().xp.broadcast_to(keep, (batch, t_len, s_len))
        return keep

    def _random_generator(self):
        return self._stream.generator()

    def compute_output_shape(self, query_shape, value_shape=None, key_shape=None):
        query_shape = tuple(query_shape)
        if self._output_shape:
            return query_shape[:-1] + self._output_shape
        return query_shape

    def get_config(self):
        return {**super().get_config(), "num_heads": self.num_heads, "key_dim": self.key_dim,
                "value_dim": self.value_dim, "dropout": self.dropout,
                "use_bias": self.use_bias,
                "output_shape": None if self._output_shape is None else list(self._output_shape),
                "attention_axes": None if self.attention_axes is None
                else list(self.attention_axes),
                **weight_options.config(self, "kernel", "bias"),
                "activity_regularizer": regularizers_module.serialize(self.activity_regularizer),
                "seed": self.seed,
                "flash_attention": self.flash_attention}


@LAYERS.register()
class Attention(Layer):
    """Dot-product (Luong-style) attention, as ``keras.layers.Attention``.

    Args:
        use_scale: learn a scalar ``scale`` multiplying the scores.
        score_mode: ``"dot"`` (``query @ key^T``) or ``"concat"``
            (``concat_score_weight * sum(tanh(query + key))``).
        dropout: dropout rate on the attention distribution (training only).
        seed: seed of the dropout.

    Call arguments: ``inputs = [query (B, Tq, dim), value (B, Tv, dim)]`` or
    ``[query, value, key]``; ``mask = [query_mask (B, Tq), value_mask (B, Tv)]``;
    ``return_attention_scores``; ``use_causal_mask``; ``training``. Output (B, Tq, dim),
    zero at masked query positions.
    """

    supports_masking = True

    def __init__(self, use_scale=False, score_mode="dot", dropout=0.0, seed=None, name=None,
                 trainable=True, dtype=None, input_shape=None):
        super().__init__(name=name, trainable=trainable, dtype=dtype, input_shape=input_shape)
        if score_mode not in ("dot", "concat"):
            raise ValueError(f"Layer '{self.name}' (Attention) needs score_mode 'dot' or "
                             f"'concat', got {score_mode!r}")
        self.use_scale, self.score_mode = bool(use_scale), score_mode
        self.dropout, self.seed = float(dropout), seed
        self._stream = SeededStream(seed)

    def _validate(self, inputs, mask=None):
        if not isinstance(inputs, (list, tuple)) or not 2 <= len(inputs) <= 3 or any(
                isinstance(item, int) for item in inputs):   # a single shape is no list
            raise ValueError(f"Layer '{self.name}' ({type(self).__name__}) must be called on "
                             f"a list [query, value] or [query, value, key], got {inputs!r}")
        if mask is not None and (not isinstance(mask, (list, tuple))
                                 or not 2 <= len(mask) <= 3):
            raise ValueError(f"Layer '{self.name}' ({type(self).__name__}) needs mask as a "
                             f"list [query_mask, value_mask], got {mask!r}")

    def build(self, input_shape):
        self._validate(input_shape)
        self.scale = self.add_weight((), "ones", name="scale") if self.use_scale else None
        self.concat_score_weight = (self.add_weight((), "ones", name="concat_score_weight")
                                    if self.score_mode == "concat" else None)
        self.built = True

    def _scores(self, query, key):
        if self.score_mode == "dot":
            scores = ops.matmul(query, ops.transpose(key, (0, 2, 1)))
            return scores if self.scale is None else ops.multiply(scores, self.scale)
        summed = ops.add(ops.expand_dims(query, -2), ops.expand_dims(key, -3))
        if self.scale is not None:
            summed = ops.multiply(summed, self.scale)
        return ops.multiply(ops.sum(ops.tanh(summed), axis=-1), self.concat_score_weight)

    def call(self, inputs, mask=None, training=None, return_attention_scores=False,
             use_causal_mask=False):
        self._validate(inputs, mask)
        query, value = inputs[0], inputs[1]
        key = inputs[2] if len(inputs) > 2 else value
        query_mask = _bool(mask[0]) if mask else None
        value_mask = _bool(mask[1]) if mask else None
        scores = self._scores(query, key)
        keep = None if value_mask is None else value_mask[:, None, :]
        if use_causal_mask:
            keep = _and(keep, _causal_mask(scores.shape[-2], scores.shape[-1]))
        if keep is not None:
            keep_float = keep.astype(scores.dtype)
            scores = ops.add(scores, (1 - keep_float) * _LARGE_NEGATIVE)
        weights = ops.softmax(scores, axis=-1)
        attended = weights
        if training and self.dropout > 0.0:
            attended = ops.dropout(weights, self.dropout, self._stream.generator())
        result = ops.matmul(attended, value)
        if query_mask is not None:
            result = ops.multiply(result, query_mask[:, :, None].astype(result.dtype))
        if return_attention_scores:
            return result, weights
        return result

    def compute_mask(self, inputs, mask=None):
        if not mask or mask[0] is None:
            return None
        return mask[0] if isinstance(mask[0], Tensor) else Tensor(_bool(mask[0]))

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[0][:-1]) + (input_shape[1][-1],)

    def get_config(self):
        return {**super().get_config(), "use_scale": self.use_scale,
                "score_mode": self.score_mode, "dropout": self.dropout, "seed": self.seed}


@LAYERS.register()
class AdditiveAttention(Attention):
    """Additive (Bahdanau-style) attention, as ``keras.layers.AdditiveAttention``: the
    scores are ``sum(scale * tanh(query + key), axis=-1)``, then as :class:`Attention`
    (masks, causal mask, dropout, ``return_attention_scores``).

    Args:
        use_scale: learn ``scale`` (one weight per feature, ``(dim,)``, glorot-uniform);
            without it the scale is 1.
        dropout: dropout rate on the attention distribution (training only).
        seed: seed of the dropout.
        score_mode: accepted as by Keras, which ignores it here (``"dot"`` or
            ``"concat"``; not in the config).
    """

    def __init__(self, use_scale=True, dropout=0.0, seed=None, score_mode="dot", name=None,
                 trainable=True, dtype=None, input_shape=None):
        super().__init__(use_scale=use_scale, score_mode=score_mode, dropout=dropout,
                         seed=seed, name=name, trainable=trainable, dtype=dtype,
                         input_shape=input_shape)

    def build(self, input_shape):
        self._validate(input_shape)
        dim = input_shape[0][-1]
        self.scale = (self.add_weight((dim,), "glorot_uniform", name="scale")
                      if self.use_scale else None)
        self.built = True

    def _scores(self, query, key):
        summed = ops.tanh(ops.add(ops.expand_dims(query, -2), ops.expand_dims(key, -3)))
        if self.scale is not None:
            summed = ops.multiply(summed, self.scale)
        return ops.sum(summed, axis=-1)

    def get_config(self):
        config = super().get_config()
        del config["score_mode"]
        return config

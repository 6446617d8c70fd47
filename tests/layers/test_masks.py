"""Masks as in Keras 3 (layers/masks.py): they travel on tensors as ``_keras_mask``, eager
and symbolic; every layer Keras marks ``supports_masking`` passes them on; a custom layer's
``call(inputs, mask=None)`` receives them; ``compute_mask`` makes new ones. Also the keras.io
guide "Understanding masking & padding", run with ``import lamina as keras``."""

import numpy as np
import pytest

import lamina
from lamina import layers, ops

IDS = np.array([[3, 1, 4, 1, 5, 0, 0], [2, 7, 1, 0, 0, 0, 0]], "int32")


def _weights(seed, model):
    rng = np.random.default_rng(seed)
    return [rng.normal(scale=0.5, size=w.shape).astype("float32") for w in model.weights]


# Keras 3.15 (torch backend) on the same weights:
#   m = keras.Sequential([keras.Input((None,), dtype="int32"),
#                         keras.layers.Embedding(8, 3, mask_zero=True),
#                         keras.layers.Dense(5, activation="tanh"), keras.layers.LSTM(4)])
#   rng = np.random.default_rng(4)
#   m.set_weights([rng.normal(scale=0.5, size=v.shape).astype("float32")
#                  for v in m.get_weights()])
#   m.predict(IDS)   # == m.predict(IDS[:1, :5]) for the first row
KERAS_MASKED = [[0.01057, 0.277929, -0.015037, 0.033123],
                [0.039916, 0.326622, 0.090238, 0.028139]]


def test_embedding_dense_lstm_padded_equals_unpadded_and_keras():
    model = lamina.Sequential([lamina.Input((None,), dtype="int32"),
                               layers.Embedding(8, 3, mask_zero=True),
                               layers.Dense(5, activation="tanh"), layers.LSTM(4)])
    model.set_weights(_weights(4, model))
    padded = model.predict(IDS, verbose=0)
    np.testing.assert_allclose(padded, KERAS_MASKED, atol=2e-5)
    np.testing.assert_allclose(model.predict(IDS[:1, :5], verbose=0), padded[:1], atol=1e-6)
    np.testing.assert_allclose(model.predict(IDS[1:, :3], verbose=0), padded[1:], atol=1e-6)


def test_masks_travel_on_eager_tensors():
    embedded = layers.Embedding(8, 3, mask_zero=True)(IDS)
    np.testing.assert_array_equal(embedded._keras_mask.numpy(), IDS != 0)
    dense = layers.Dense(2)(embedded)
    assert dense._keras_mask is embedded._keras_mask   # Dense passes it on (Keras 3)
    lstm = layers.LSTM(2, return_sequences=True)
    out = lstm(dense)
    np.testing.assert_array_equal(out._keras_mask.numpy(), IDS != 0)
    last = layers.LSTM(2)(dense)
    assert getattr(last, "_keras_mask", None) is None   # return_sequences=False: no mask
    with pytest.warns(UserWarning, match="'flatten'.*does not support masking"):
        flat = layers.Flatten(name="flatten")(dense)
    assert getattr(flat, "_keras_mask", None) is None


class MaskConsumer(layers.Layer):
    """Mean over the unmasked steps; records the mask it was given."""

    def call(self, inputs, mask=None):
        self.seen = None if mask is None else mask.numpy()
        weights = ops.expand_dims(ops.cast(mask, "float32"), -1)
        return ops.sum(inputs * weights, axis=1) / ops.sum(weights, axis=1)

    def compute_mask(self, inputs, mask=None):
        return None


def test_custom_call_receives_the_mask_in_every_kind_of_model():
    def check(consumer, result):
        np.testing.assert_array_equal(consumer.seen, IDS != 0)
        assert np.asarray(result).shape == (2, 3)

    consumer = MaskConsumer()
    check(consumer, consumer(layers.Embedding(8, 3, mask_zero=True)(IDS)))
    consumer = MaskConsumer()
    sequential = lamina.Sequential([layers.Embedding(8, 3, mask_zero=True),
                                    layers.Dropout(0.5), consumer])
    check(consumer, sequential.predict(IDS, verbose=0))
    consumer = MaskConsumer()
    inputs = lamina.Input((None,), dtype="int32")
    functional = lamina.Model(inputs, consumer(layers.Activation("relu")(
        layers.Embedding(8, 3, mask_zero=True)(inputs))))
    check(consumer, functional.predict(IDS, verbose=0))

    class Subclassed(lamina.Model):
        def __init__(self):
            super().__init__()
            self.embedding = layers.Embedding(8, 3, mask_zero=True)
            self.consumer = MaskConsumer()

        def call(self, inputs):
            return self.consumer(self.embedding(inputs))

    subclassed = Subclassed()
    check(subclassed.consumer, subclassed.predict(IDS, verbose=0))


def test_explicit_mask_argument_wins_and_named_argument_masks():
    consumer = MaskConsumer()
    x = np.ones((2, 4, 3), "float32")
    mask = np.array([[1, 1, 0, 0], [1, 0, 0, 0]], bool)
    consumer(x, mask=lamina.Tensor(mask))
    np.testing.assert_array_equal(consumer.seen, mask)

    class Pair(layers.Layer):
        def call(self, query, value, query_mask=None, value_mask=None):
            self.seen = (query_mask, value_mask)
            return query

    query = layers.Embedding(8, 3, mask_zero=True)(IDS)
    pair = Pair()
    with pytest.warns(UserWarning, match="does not support masking"):  # as Keras warns
        pair(query, np.ones((2, 7, 3), "float32"))
    assert pair.seen[0] is query._keras_mask and pair.seen[1] is None


def test_symbolic_tensors_carry_masks_and_compute_mask_shapes():
    inputs = lamina.Input((None,), dtype="int32")
    embedded = layers.Embedding(8, 3, mask_zero=True)(inputs)
    assert embedded._keras_mask.shape == (None, None) and embedded._keras_mask.dtype == "bool"
    assert layers.Dense(2)(embedded)._keras_mask is embedded._keras_mask
    sequences, h, c = layers.LSTM(2, return_sequences=True, return_state=True)(embedded)
    assert sequences._keras_mask.shape == (None, None)
    assert getattr(h, "_keras_mask", None) is None and getattr(c, "_keras_mask", None) is None
    assert getattr(layers.Embedding(8, 3)(inputs), "_keras_mask", None) is None


# ------------------------------------------------------------------ the keras.io guide
# "Understanding masking & padding" (Keras 3 version), every snippet as written there with
# `import lamina as keras` (prints become asserts).
def test_keras_guide_understanding_masking_and_padding():
    keras = lamina
    raw_inputs = [[711, 632, 71], [73, 8, 3215, 55, 927], [83, 91, 1, 645, 1253, 927]]
    padded_inputs = keras.utils.pad_sequences(raw_inputs, padding="post")

    embedding = layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True)
    masked_output = embedding(padded_inputs)
    np.testing.assert_array_equal(masked_output._keras_mask.numpy(), padded_inputs != 0)

    masking_layer = layers.Masking()
    unmasked_embedding = ops.cast(
        ops.tile(ops.expand_dims(padded_inputs, axis=-1), [1, 1, 10]), "float32"
    )
    masked_embedding = masking_layer(unmasked_embedding)
    np.testing.assert_array_equal(masked_embedding._keras_mask.numpy(), padded_inputs != 0)

    class MyLayer(layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.embedding = layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True)
            self.lstm = layers.LSTM(32)

        def call(self, inputs):
            x = self.embedding(inputs)
            mask = self.embedding.compute_mask(inputs)
            output = self.lstm(x, mask=mask)  # The layer will ignore the masked values
            return output

    layer = MyLayer()
    x = np.random.random((32, 10)) * 100
    x = x.astype("int32")
    assert layer(x).shape == (32, 32)

    class TemporalSplit(keras.layers.Layer):
        """Split the input tensor into 2 tensors along the time dimension."""

        def call(self, inputs):
            return ops.split(inputs, 2, axis=1)

        def compute_mask(self, inputs, mask=None):
            if mask is None:
                return None
            return ops.split(mask, 2, axis=1)

    first_half, second_half = TemporalSplit()(masked_embedding)
    np.testing.assert_array_equal(first_half._keras_mask.numpy(), padded_inputs[:, :3] != 0)
    np.testing.assert_array_equal(second_half._keras_mask.numpy(), padded_inputs[:, 3:] != 0)

    class CustomEmbedding(keras.layers.Layer):
        def __init__(self, input_dim, output_dim, mask_zero=False, **kwargs):
            super().__init__(**kwargs)
            self.input_dim = input_dim
            self.output_dim = output_dim
            self.mask_zero = mask_zero
            self.embeddings = self.add_weight(
                shape=(input_dim, output_dim), initializer="random_normal", dtype="float32",
            )

        def call(self, inputs):
            inputs = ops.cast(inputs, "int32")
            return ops.take(self.embeddings, inputs)

        def compute_mask(self, inputs, mask=None):
            if not self.mask_zero:
                return None
            return ops.not_equal(inputs, 0)

    layer = CustomEmbedding(10, 32, mask_zero=True)
    x = np.random.random((3, 10)) * 9
    x = x.astype("int32")
    y = layer(x)
    np.testing.assert_array_equal(layer.compute_mask(x).numpy(), x != 0)
    np.testing.assert_array_equal(y._keras_mask.numpy(), x != 0)

    class MyActivation(keras.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            # Signal that the layer is safe for mask propagation
            self.supports_masking = True

        def call(self, inputs):
            return keras.activations.relu(inputs)

    inputs = keras.Input(shape=(None,), dtype="int32")
    x = layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True)(inputs)
    x = MyActivation()(x)  # Will pass the mask along
    assert x._keras_mask is not None                     # the guide prints "Mask found:"
    outputs = layers.LSTM(32)(x)  # Will receive the mask
    model = keras.Model(inputs, outputs)
    assert model(np.random.randint(0, 5000, size=(32, 100))).shape == (32, 32)

    class TemporalSoftmax(keras.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.supports_masking = True

        def call(self, inputs, mask=None):
            assert mask is not None
            broadcast_float_mask = ops.expand_dims(ops.cast(mask, "float32"), -1)
            inputs_exp = ops.exp(inputs) * broadcast_float_mask
            inputs_sum = ops.sum(inputs_exp * broadcast_float_mask, axis=-1, keepdims=True)
            return inputs_exp / inputs_sum

    inputs = keras.Input(shape=(None,), dtype="int32")
    x = layers.Embedding(input_dim=10, output_dim=32, mask_zero=True)(inputs)
    x = layers.Dense(1)(x)
    outputs = TemporalSoftmax()(x)
    model = keras.Model(inputs, outputs)
    with np.errstate(invalid="ignore"):          # 0/0 at the masked steps, as in Keras
        y = model(np.random.randint(0, 10, size=(32, 100)))
    assert y.shape == (32, 100, 1)

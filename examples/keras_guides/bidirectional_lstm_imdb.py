"""keras.io example "Bidirectional LSTM on IMDB" (fchollet), ported to lamina.

Source: keras-team/keras-io, examples/nlp/bidirectional_lstm_imdb.py (Apache License
2.0), in its Keras 3 form (`import keras`, `keras.utils.pad_sequences`). Changed: the
imports (`import lamina as keras`, `from lamina import layers`); the prose is cut; the
`keras.datasets.imdb` download is replaced by generated reviews of the same kind (lists
of word indices below `max_features`, 20 to 300 words long, labels 0/1, 160 train / 64
validation reviews); 1 epoch instead of 2.
"""

import numpy as np
import lamina as keras
from lamina import layers

max_features = 20000  # Only consider the top 20k words
maxlen = 200  # Only consider the first 200 words of each movie review

# Input for variable-length sequences of integers
inputs = keras.Input(shape=(None,), dtype="int32")
# Embed each integer in a 128-dimensional vector
x = layers.Embedding(max_features, 128)(inputs)
# Add 2 bidirectional LSTMs
x = layers.Bidirectional(layers.LSTM(64, return_sequences=True))(x)
x = layers.Bidirectional(layers.LSTM(64))(x)
# Add a classifier
outputs = layers.Dense(1, activation="sigmoid")(x)
model = keras.Model(inputs, outputs)
model.summary()


def generated_imdb(n, rng):
    """Lists of word indices (object array, as keras.datasets.imdb returns) and labels."""
    reviews = np.empty(n, dtype=object)
    reviews[:] = [list(rng.integers(1, max_features, rng.integers(20, 300)))
                  for _ in range(n)]
    return reviews, rng.integers(0, 2, n)


# Generated in place of keras.datasets.imdb.load_data(num_words=max_features):
rng = np.random.default_rng(0)
(x_train, y_train), (x_val, y_val) = generated_imdb(160, rng), generated_imdb(64, rng)
print(len(x_train), "Training sequences")
print(len(x_val), "Validation sequences")
# Use pad_sequence to standardize sequence length:
# this will truncate sequences longer than 200 words and zero-pad sequences shorter than 200 words.
x_train = keras.utils.pad_sequences(x_train, maxlen=maxlen)
x_val = keras.utils.pad_sequences(x_val, maxlen=maxlen)

model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
model.fit(x_train, y_train, batch_size=32, epochs=1, validation_data=(x_val, y_val))
print("bidirectional LSTM example OK")

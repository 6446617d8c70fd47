"""``lamina.layers``: the Layer base class and every built-in layer.

Example:
    >>> from lamina import layers
    >>> dense = layers.Dense(64, activation="relu")
"""

from .options import activations, constraints, initializers, regularizers
from .base import LAYERS, InputSpec, Layer
from .core import (Activation, Dense, Dropout, Flatten, Identity, Lambda, Permute, RepeatVector,
                   Reshape, Rescaling)
from .input_layer import Input, InputLayer
from .convolution import (Conv1D, Conv2D, Conv2DTranspose, DepthwiseConv2D,
                          SeparableConv2D)
from .noise import ActivityRegularization, GaussianNoise, SpatialDropout1D, SpatialDropout2D
from .normalization import BatchNormalization, LayerNormalization
from .pooling import (AveragePooling1D, AveragePooling2D, GlobalAveragePooling1D,
                      GlobalAveragePooling2D, GlobalMaxPooling1D, GlobalMaxPooling2D,
                      MaxPooling1D, MaxPooling2D)
from .preprocessing import Normalization
from .attention import Attention, MultiHeadAttention
from .embedding import Embedding, Masking
from .merge import (Add, Average, Concatenate, Dot, Maximum, Minimum, Multiply, Subtract)
from .rnn.bidirectional import Bidirectional
from .rnn.rnn import GRU, LSTM, RNN, SimpleRNN
from .rnn.cells import GRUCell, LSTMCell, SimpleRNNCell
from .reshaping import (Cropping1D, Cropping2D, UpSampling1D, UpSampling2D, ZeroPadding1D,
                        ZeroPadding2D)
from .wrappers import TimeDistributed
from .symbolic import SymbolicTensor
from .serialization import deserialize, serialize


def get(name, custom_objects=None):
    """The layer class registered as ``name`` (``custom_objects`` first)."""
    return LAYERS.lookup(name, custom_objects)

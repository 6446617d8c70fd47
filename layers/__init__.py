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
from .activation_layers import ELU, LeakyReLU, PReLU, ReLU, Softmax
from .convolution import (Conv1D, Conv2D, Conv3D, Convolution1D, Convolution2D,
                          Convolution3D)
from .convolution_transpose import (Conv1DTranspose, Conv2DTranspose, Conv3DTranspose,
                                    Convolution1DTranspose, Convolution2DTranspose,
                                    Convolution3DTranspose)
from .convolution_depthwise import (DepthwiseConv1D, DepthwiseConv2D, SeparableConv1D,
                                    SeparableConv2D, SeparableConvolution1D,
                                    SeparableConvolution2D)
from .noise import (ActivityRegularization, AlphaDropout, GaussianDropout, GaussianNoise,
                    SpatialDropout1D, SpatialDropout2D, SpatialDropout3D)
from .normalization import (BatchNormalization, GroupNormalization, LayerNormalization,
                            UnitNormalization)
from .pooling import (AveragePooling1D, AveragePooling2D, AveragePooling3D, AvgPool1D,
                      AvgPool2D, AvgPool3D, GlobalAveragePooling1D, GlobalAveragePooling2D,
                      GlobalAveragePooling3D, GlobalAvgPool1D, GlobalAvgPool2D,
                      GlobalAvgPool3D, GlobalMaxPool1D, GlobalMaxPool2D, GlobalMaxPool3D,
                      GlobalMaxPooling1D, GlobalMaxPooling2D, GlobalMaxPooling3D, MaxPool1D,
                      MaxPool2D, MaxPool3D, MaxPooling1D, MaxPooling2D, MaxPooling3D)
from .adaptive_pooling import (AdaptiveAveragePooling1D, AdaptiveAveragePooling2D,
                               AdaptiveAveragePooling3D, AdaptiveMaxPooling1D,
                               AdaptiveMaxPooling2D, AdaptiveMaxPooling3D)
from .preprocessing import (CategoryEncoding, Discretization, Hashing, IntegerLookup,
                            Normalization, StringLookup, TextVectorization)
from .preprocessing import (AutoContrast, CenterCrop, HashedCrossing, RandomBrightness,
                            RandomContrast, RandomCrop, RandomFlip, RandomGrayscale, RandomRotation,
                            RandomTranslation, RandomZoom, Resizing)
from .attention import Attention, MultiHeadAttention
from .embedding import Embedding, Masking
from .merge import (Add, Average, Concatenate, Dot, Maximum, Minimum, Multiply, Subtract,
                    add, average, concatenate, dot, maximum, minimum, multiply, subtract)
from .rnn.bidirectional import Bidirectional
from .rnn.rnn import GRU, LSTM, RNN, SimpleRNN
from .rnn.cells import GRUCell, LSTMCell, SimpleRNNCell
from .rnn.conv_lstm import ConvLSTM1D, ConvLSTM2D, ConvLSTM3D
from .reshaping import (Cropping1D, Cropping2D, Cropping3D, UpSampling1D, UpSampling2D,
                        UpSampling3D, ZeroPadding1D, ZeroPadding2D, ZeroPadding3D)
from .wrappers import TimeDistributed
from .symbolic import SymbolicTensor
from . import symbolic_operations  # noqa: F401  (installs SymbolicTensor's operators)
from .serialization import deserialize, serialize


def get(name, custom_objects=None):
    """The layer class registered as ``name`` (``custom_objects`` first)."""
    return LAYERS.lookup(name, custom_objects)

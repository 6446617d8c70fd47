"""Recurrent layers: the RNN wrapper, its cells, and the Keras recurrent layers."""

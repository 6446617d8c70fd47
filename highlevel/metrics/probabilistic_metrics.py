"""Probabilistic and hinge metrics: the means of the cross-entropies, Kullback-Leibler
divergence, Poisson, hinge, squared hinge and categorical hinge losses (``keras.metrics``
names and defaults)."""

from ..losses.hinge import categorical_hinge, hinge, squared_hinge
from ..losses.probabilistic import (binary_crossentropy, binary_focal_crossentropy,
                                    categorical_crossentropy, categorical_focal_crossentropy,
                                    kl_divergence, poisson, sparse_categorical_crossentropy)
from .reduction_metrics import wrapped

KLDivergence = wrapped("KLDivergence", kl_divergence, "kl_divergence",
                       "Mean Kullback-Leibler divergence.")
Poisson = wrapped("Poisson", poisson, "poisson", "Mean Poisson loss.")
BinaryCrossentropy = wrapped(
    "BinaryCrossentropy", binary_crossentropy, "binary_crossentropy",
    "Mean binary cross-entropy.", from_logits=False, label_smoothing=0.0)
CategoricalCrossentropy = wrapped(
    "CategoricalCrossentropy", categorical_crossentropy, "categorical_crossentropy",
    "Mean categorical cross-entropy.", from_logits=False, label_smoothing=0.0, axis=-1)
SparseCategoricalCrossentropy = wrapped(
    "SparseCategoricalCrossentropy", sparse_categorical_crossentropy,
    "sparse_categorical_crossentropy", "Mean sparse categorical cross-entropy.",
    from_logits=False, axis=-1)
Hinge = wrapped("Hinge", hinge, "hinge", "Mean hinge loss.")
SquaredHinge = wrapped("SquaredHinge", squared_hinge, "squared_hinge",
                       "Mean squared hinge loss.")
CategoricalHinge = wrapped("CategoricalHinge", categorical_hinge, "categorical_hinge",
                           "Mean categorical hinge loss.")

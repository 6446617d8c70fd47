"""``lamina.wrappers``: scikit-learn estimators around lamina models."""

from . import sklearn
from .sklearn import *  # noqa: F401,F403  (the public names)

__all__ = list(sklearn.__all__)

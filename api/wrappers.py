"""``lamina.wrappers``: scikit-learn estimators around lamina models, as ``keras.wrappers``.

Importing it imports scikit-learn, so ``import lamina`` leaves it to first use."""

from lamina.highlevel.wrappers import *  # noqa: F401,F403  (the public names)
from lamina.highlevel.wrappers import __all__  # noqa: F401

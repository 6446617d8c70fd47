"""``SpectralNormalization`` (Miyato et al., 2018): a wrapper that keeps the spectral norm
of a layer's kernel near 1, with Keras 3's arguments, weights and config."""

import threading

from ..backends import state
from ..backends.autodiff import Variable
from .options import initializers as initializers_module
from .arguments import is_int, layer_error
from .base import LAYERS, InputSpec
from .wrappers import Wrapper


def _l2_normalized(xp, x):
    """``x`` over its L2 norm, floored at ``lamina.config.epsilon()`` (Keras'
    ``normalize(x, axis=None)``, which reads ``backend.epsilon()``)."""
    return x * xp.minimum(1.0 / xp.sqrt(xp.sum(x * x)), 1.0 / state.epsilon())


@LAYERS.register()
class SpectralNormalization(Wrapper):
    """Divides the wrapped layer's ``kernel`` (or ``embeddings``) by its largest singular
    value, estimated by power iteration, at every training call, as
    ``keras.layers.SpectralNormalization``.

    Args:
        layer: a layer with a ``kernel`` (Dense, Conv*, ...) or ``embeddings`` weight.
        power_iterations: power-iteration steps per training call (a positive int).

    With ``training=True`` the call first updates ``vector_u`` and assigns ``kernel /
    sigma`` to the kernel (outside the gradient, as Keras: the gradient is the wrapped
    layer's with the new kernel; an all-zero kernel is left alone), then runs the layer;
    inference runs the layer as it is. Weights, as Keras: the kernel (the wrapper also
    holds it, so it is saved in both variable groups of a ``.keras`` file), ``vector_u``
    (1, kernel.shape[-1]) non-trainable, then the wrapped layer's other weights. The
    update reads one flag from the device (the all-zero check), so a ``jit_compile=True``
    train step with this layer runs eagerly (with the compiled step's warning).

    Example:
        >>> sn = SpectralNormalization(Dense(10))
        >>> sn(np.ones((2, 4), "float32"), training=True).shape
        (2, 10)
    """

    def __init__(self, layer, power_iterations=1, name=None, trainable=True, dtype=None,
                 input_shape=None):
        super().__init__(layer, name=name, trainable=trainable, dtype=dtype,
                         input_shape=input_shape)
        if not is_int(power_iterations) or power_iterations <= 0:
            raise layer_error(self, f"needs power_iterations to be a positive int, got "
                                    f"{power_iterations!r}")
        self.power_iterations = int(power_iterations)

    def build(self, input_shape):
        super().build(input_shape)
        kernel = getattr(self.layer, "kernel", None)
        if not isinstance(kernel, Variable):
            kernel = getattr(self.layer, "embeddings", None)
        if not isinstance(kernel, Variable):
            raise layer_error(self, f"needs a layer with a 'kernel' or 'embeddings' weight, "
                                    f"got {type(self.layer).__name__}")
        for weight in self.layer.weights:
            weight.path = f"{self.name}/{weight.path}"
        self.kernel = kernel
        self._own_weights.append(kernel)          # Keras tracks it as the wrapper's too
        self.vector_u = self.add_weight(
            (1, kernel.shape[-1]), initializers_module.TruncatedNormal(stddev=0.02),
            dtype=kernel.dtype, trainable=False, name="vector_u")
        self.input_spec = InputSpec(min_ndim=1, axes={-1: input_shape[-1]})
        self.built = True

    def call(self, inputs, training=False):
        if training:
            self.normalize_weights()
        if self.layer.call_accepts_training:
            return self.layer(inputs, training=training)
        return self.layer(inputs)

    def normalize_weights(self):
        """One training update: ``power_iterations`` steps on ``vector_u``, then the
        kernel divided by the estimated spectral norm ``sigma = v W u^T``."""
        xp = state.backend().xp
        kernel = self.kernel.data
        if not bool(xp.any(kernel != 0)):
            return
        weights = kernel.reshape(-1, kernel.shape[-1])
        u = self.vector_u.data
        for _ in range(self.power_iterations):
            v = _l2_normalized(xp, u @ weights.T)
            u = _l2_normalized(xp, v @ weights)
        sigma = (v @ weights) @ u.T
        self.vector_u.assign(u)
        self.kernel.assign(kernel / sigma)

    @property
    def losses(self):
        """The wrapped layer's penalties (its kernel's once, though the wrapper holds the
        kernel too) and this layer's activity penalties."""
        return list(self._call_losses.get(threading.get_ident(), ())) + self.layer.losses

    def compute_output_shape(self, input_shape):
        return self.layer.compute_output_shape(input_shape)

    def get_config(self):
        return {**super().get_config(), "power_iterations": self.power_iterations}

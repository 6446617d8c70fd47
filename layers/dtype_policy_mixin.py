"""The dtype-policy part of the ``Layer`` contract (Keras 3): ``dtype_policy``,
``dtype`` (the variable dtype), ``compute_dtype``, ``variable_dtype``, and the autocast of
floating inputs to the compute dtype that ``Layer.__call__`` applies."""

import numpy as np

from ..backends import ops
from .masks import attached_mask
from .options import dtype_policies

_FLOAT_DTYPES = ("float16", "float32", "float64")


class DTypePolicyMixin:
    """A layer's dtype policy (``Layer`` inherits it); the policy is set from the
    ``dtype`` constructor argument (``self.dtype_policy = dtype``)."""

    @property
    def dtype_policy(self):
        """The layer's :class:`~lamina.dtype_policies.DTypePolicy`."""
        return self._dtype_policy

    @dtype_policy.setter
    def dtype_policy(self, value):
        policy = dtype_policies.check_supported(dtype_policies.get(value))
        self._dtype_policy = policy
        self._compute_dtype = policy.compute_dtype
        # the dtype variables are read in while ``call`` runs (None: as stored)
        self._autocast_dtype = policy.compute_dtype if (
            policy.compute_dtype != policy.variable_dtype) else None

    @property
    def dtype(self):
        """The variable dtype (Keras' alias of ``variable_dtype``); setting it sets the
        policy."""
        return self._dtype_policy.variable_dtype

    @dtype.setter
    def dtype(self, value):
        self.dtype_policy = value

    @property
    def compute_dtype(self):
        """The dtype the layer computes in (its policy's)."""
        return self._compute_dtype

    @property
    def variable_dtype(self):
        """The dtype the layer's weights are created in (its policy's)."""
        return self._dtype_policy.variable_dtype

    def _autocast_input(self, tensor):
        """A floating Tensor input cast to the compute dtype (gradients flow back), as
        Keras' ``convert_input``: under a mixed policy, or a float16 tensor reaching a
        wider float layer (a final ``Activation(dtype="float32")``). A float64 tensor
        given to a plain float32 layer is left as it is (lamina's float64 checks)."""
        compute = self._compute_dtype
        if compute not in _FLOAT_DTYPES or not (
                self._autocast_dtype is not None
                or tensor.data.dtype.itemsize < np.dtype(compute).itemsize):
            return tensor
        cast = ops.cast(tensor, compute)
        mask = attached_mask(tensor)
        if mask is not None:
            cast._keras_mask = mask
        return cast

    def _dtype_policy_config(self):
        """The config's ``"dtype"`` (see ``dtype_policies.config_value``)."""
        return dtype_policies.config_value(self._dtype_policy)

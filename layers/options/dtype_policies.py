"""Dtype policies (``keras.dtype_policies`` / ``keras.mixed_precision``).

A :class:`DTypePolicy` names the dtype a layer computes in (``compute_dtype``) and the
dtype it stores its variables in (``variable_dtype``): ``"float32"`` (both float32),
``"mixed_float16"`` (float16 compute, float32 variables), ``"mixed_bfloat16"``, or any
dtype name. ``set_global_policy`` / ``set_dtype_policy`` sets the policy of layers created
afterwards without a ``dtype=``; ``global_policy`` / ``dtype_policy`` returns it (by
default the ``floatx()`` policy).

bfloat16 on lamina's engines: NumPy (and CuPy) have no bfloat16 array dtype and
``ml_dtypes`` is not a dependency, so a ``"mixed_bfloat16"`` (or ``"bfloat16"``) policy can
be created and serialized, but setting it globally or giving it to a layer raises
``ValueError`` naming the engine and suggesting ``"mixed_float16"`` or ``"float32"``.

Example:
    >>> lamina.mixed_precision.set_global_policy("mixed_float16")
    >>> layer = lamina.layers.Dense(10)
    >>> layer.compute_dtype, layer.variable_dtype
    ('float16', 'float32')
"""

import numpy as np

from ...backends import state
from ...backends.registry import Registry

DTYPE_POLICIES = Registry("dtype policy")

_MIXED = {"mixed_float16": ("float16", "float32"), "mixed_bfloat16": ("bfloat16", "float32")}


@DTYPE_POLICIES.register()
class DTypePolicy:
    """A layer's computation and variable dtypes, as Keras 3's ``DTypePolicy``.

    Args:
        name: ``"mixed_float16"``, ``"mixed_bfloat16"`` or a dtype name (``"float32"``,
            ``"float64"``, ...; both dtypes are then that one). None: the global policy's.
    """

    def __init__(self, name=None):
        if name is None:
            name = global_policy().name
        self._compute_dtype, self._variable_dtype = _parse_name(name)
        self._name = name

    @property
    def name(self):
        """The policy's name (``"mixed_float16"``)."""
        return self._name

    @property
    def compute_dtype(self):
        """The dtype layers compute in (and cast their floating inputs to)."""
        return self._compute_dtype

    @property
    def variable_dtype(self):
        """The dtype layers create their variables in."""
        return self._variable_dtype

    @property
    def quantization_mode(self):
        """Keras' quantization mode: None (lamina has no quantized policies)."""
        return None

    def get_config(self):
        """``{"name": ...}``, as Keras."""
        return {"name": self._name}

    @classmethod
    def from_config(cls, config):
        """The policy of a ``get_config()`` dict."""
        return cls(**config)

    def __repr__(self):
        return f'<DTypePolicy "{self._name}">'

    def __eq__(self, other):
        return isinstance(other, DTypePolicy) and self._name == other._name

    def __hash__(self):
        return hash(self._name)


@DTYPE_POLICIES.register()
class FloatDTypePolicy(DTypePolicy):
    """Keras' alias of :class:`DTypePolicy`."""


def _parse_name(name):
    if not isinstance(name, str):
        raise TypeError(f"'name' must be a string, such as 'mixed_float16'. "
                        f"Received: name={name} (of type {type(name)})")
    if name in _MIXED:
        return _MIXED[name]
    if name in ("string", "bfloat16"):
        return name, name
    try:
        dtype = np.dtype(name).name
    except TypeError:
        raise ValueError(f"Cannot convert '{name}' to a mixed precision DTypePolicy. Valid "
                         "policies include 'mixed_float16', 'mixed_bfloat16', and the name "
                         "of any float dtype such as 'float32'.") from None
    return dtype, dtype


def check_supported(policy):
    """``policy`` if the active engine can compute in it; ValueError for bfloat16, which
    NumPy and CuPy arrays lack."""
    if "bfloat16" in (policy.compute_dtype, policy.variable_dtype):
        engine = state.backend().name
        raise ValueError(
            f"dtype policy '{policy.name}' needs bfloat16 arrays, which lamina's "
            f"'{engine}' engine does not have (NumPy has no bfloat16 dtype and ml_dtypes "
            "is not a dependency of lamina). Use 'mixed_float16' (float16 compute, float32 "
            "variables, loss scaling) or 'float32' instead.")
    return policy


_global = {"policy": None}


def set_dtype_policy(policy):
    """Set the policy of layers created from now on without ``dtype=`` (a name or a
    :class:`DTypePolicy`). Keras' ``keras.config.set_dtype_policy``; lamina also takes
    None: back to the default, the policy of the current ``floatx()``."""
    if policy is None:
        _global["policy"] = None
        return
    if not isinstance(policy, DTypePolicy):
        if not isinstance(policy, str):
            raise ValueError("Invalid `policy` argument. Expected the string name of a policy "
                             "(such as 'mixed_float16') or a `DTypePolicy` instance. "
                             f"Received: policy={policy} (of type {type(policy)})")
        policy = DTypePolicy(policy)
    _global["policy"] = check_supported(policy)


def dtype_policy():
    """The global policy: the one set with :func:`set_dtype_policy`, else the
    ``floatx()`` policy (``"float32"``)."""
    policy = _global["policy"]
    return DTypePolicy(state.floatx()) if policy is None else policy


set_global_policy = set_dtype_policy
global_policy = dtype_policy
Policy = DTypePolicy

def serialize(policy):
    """Keras 3's serialized policy: ``{"module": "keras", "class_name": "DTypePolicy",
    "config": {"name": ...}, "registered_name": None}``."""
    return {"module": "keras", "class_name": "DTypePolicy", "config": policy.get_config(),
            "registered_name": None}


def deserialize(config, custom_objects=None):
    """The policy of a :func:`serialize` dict (Keras-written dicts included)."""
    if not isinstance(config, dict) or not isinstance(config.get("config"), dict):
        raise ValueError(f"Cannot deserialize a DTypePolicy from {config!r}: expected a "
                         "dict with 'class_name' and 'config'")
    cls = DTYPE_POLICIES.lookup(config.get("class_name", "DTypePolicy"), custom_objects)
    return cls.from_config(config["config"])


def get(identifier):
    """A :class:`DTypePolicy` from None (the global policy), a name, a config dict, a
    policy or a NumPy dtype."""
    if identifier is None:
        return dtype_policy()
    if isinstance(identifier, DTypePolicy):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        return DTypePolicy(identifier)
    try:
        return DTypePolicy(np.dtype(identifier).name)
    except TypeError:
        raise ValueError("Cannot interpret `dtype` argument. Expected a string or an "
                         f"instance of DTypePolicy. Received: dtype={identifier}") from None


def config_value(policy):
    """A layer config's ``"dtype"``: the :func:`serialize` dict for a mixed policy (as
    Keras 3 writes it), the dtype name for a plain one (which Keras also reads)."""
    if policy.compute_dtype != policy.variable_dtype:
        return serialize(policy)
    return policy.name


__all__ = ["DTypePolicy", "FloatDTypePolicy", "Policy", "deserialize", "dtype_policy", "get",
           "global_policy", "serialize", "set_dtype_policy", "set_global_policy"]

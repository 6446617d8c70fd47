"""``rearrange``: einops-style axis reordering, splitting and merging, as
``keras.ops.rearrange`` (named axes and parenthesized groups; no ellipsis), composed of
``reshape`` and ``transpose`` (differentiable)."""

import math
import re

from .core import data_of
from .shape import reshape, transpose

_GROUP = re.compile(r"\(([^()]*)\)|([^\s()]+)")


def _groups(side, pattern):
    """The axis groups of one side of ``pattern``: a list of lists of names."""
    if side.count("(") != side.count(")"):
        raise ValueError(f"rearrange: unbalanced parentheses in pattern {pattern!r}")
    groups = [inner.split() if inner is not None and bare == "" else [bare]
              for inner, bare in ((m.group(1), m.group(2) or "")
                                  for m in _GROUP.finditer(side))]
    names = [name for group in groups for name in group]
    bad = [name for name in names if not name.isidentifier()]
    if bad:
        raise ValueError(f"rearrange: axis names must be identifiers, got {bad} in "
                         f"pattern {pattern!r}")
    if len(set(names)) != len(names):
        raise ValueError(f"rearrange: an axis appears twice on one side of {pattern!r}")
    return groups


def rearrange(tensor, pattern, **axes_lengths):
    """``tensor`` rearranged as einops' ``pattern`` says, e.g. ``"b h w c -> b c h w"``
    (transpose), ``"b h w c -> b (h w c)"`` (merge), ``"b (h1 h) w c -> (b h1) h w c"``
    with ``h1=2`` (split: at most one unknown length per group, inferred).

    Example:
        >>> rearrange(np.zeros((32, 30, 40, 3)), "b h w c -> b c h w").shape
        (32, 3, 30, 40)
    """
    if not isinstance(pattern, str) or pattern.count("->") != 1:
        raise ValueError(f"rearrange needs a pattern 'inputs -> outputs', got {pattern!r}")
    left, right = pattern.split("->")
    inputs, outputs = _groups(left, pattern), _groups(right, pattern)
    shape = tuple(data_of(tensor).shape)
    if len(inputs) != len(shape):
        raise ValueError(f"rearrange: pattern {pattern!r} has {len(inputs)} input axes, "
                         f"the tensor has shape {shape}")
    in_names = [name for group in inputs for name in group]
    out_names = [name for group in outputs for name in group]
    if set(in_names) != set(out_names):
        raise ValueError(f"rearrange: pattern {pattern!r} must name the same axes on both "
                         f"sides, got {sorted(set(in_names) ^ set(out_names))} on one side "
                         f"only")
    lengths = {}
    for group, size in zip(inputs, shape):
        unknown = [name for name in group if name not in axes_lengths]
        known = math.prod(int(axes_lengths[name]) for name in group if name in axes_lengths)
        if len(unknown) > 1 or (unknown and size % known) or (not unknown and known != size):
            raise ValueError(f"rearrange: cannot split an axis of length {size} into "
                             f"{group} with axes_lengths={axes_lengths}")
        lengths.update({name: int(axes_lengths.get(name, 0)) or size // known
                        for name in group})
    split = reshape(tensor, [lengths[name] for name in in_names])
    moved = transpose(split, [in_names.index(name) for name in out_names])
    return reshape(moved, [math.prod(lengths[name] for name in group) for group in outputs])

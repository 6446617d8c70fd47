"""Tensor products: ``einsum`` (with a general backward), ``tensordot``, ``dot``,
``inner``, ``outer``, ``vdot``, ``kron`` and ``cross``. ``einsum`` is one op with its
vector-Jacobian product; the others are built from differentiable ops."""

import string

from .core import data_of, record, unbroadcast, xp
from .math import matmul, multiply, subtract
from .reductions import sum as reduce_sum
from .shape import getitem, moveaxis, ravel, reshape, stack, transpose


def _einsum(spec, *arrays):
    numpy_like = xp()
    if numpy_like.__name__ == "numpy":        # NumPy reaches BLAS only with optimize
        return numpy_like.einsum(spec, *arrays, optimize=True)
    return numpy_like.einsum(spec, *arrays)


def _parse(subscripts, arrays):
    """Explicit per-operand letter lists and the output letters (ellipses expanded)."""
    subscripts = subscripts.replace(" ", "")
    inputs, arrow, output = subscripts.partition("->")
    specs = inputs.split(",")
    if len(specs) != len(arrays):
        raise ValueError(f"einsum: {subscripts!r} names {len(specs)} operands, got "
                         f"{len(arrays)}")
    fresh = [c for c in string.ascii_letters if c not in subscripts]
    widths = [a.ndim - len(s.replace("...", "")) if "..." in s else 0
              for s, a in zip(specs, arrays)]
    ellipsis = fresh[:max(widths, default=0)]
    expanded = [list(s.replace("...", "".join(ellipsis[len(ellipsis) - w:]) if w else ""))
                for s, w in zip(specs, widths)]
    if arrow:
        out = list(output.replace("...", "".join(ellipsis)))
    else:
        letters = [c for spec in expanded for c in spec if c not in ellipsis]
        out = ellipsis + sorted(c for c in set(letters) if letters.count(c) == 1)
    return expanded, out, fresh[len(ellipsis):]


def _operand_gradient(g, index, specs, out, arrays, spare):
    """The vjp of einsum with respect to operand ``index``."""
    numpy_like = xp()
    spec = specs[index]
    sizes = dict(zip(spec, arrays[index].shape))
    others = [s for i, s in enumerate(specs) if i != index]
    available = set(out).union(*others) if others else set(out)
    unique = list(dict.fromkeys(spec))
    kept = [c for c in unique if c in available]
    terms = ",".join(["".join(out)] + ["".join(s) for s in others])
    grad = _einsum(f"{terms}->{''.join(kept)}", g,
                   *[a for i, a in enumerate(arrays) if i != index])
    if len(kept) < len(unique):          # letters summed in this operand only: broadcast
        grad = grad.reshape([sizes[c] if c in kept else 1 for c in unique])
        grad = numpy_like.broadcast_to(grad, [sizes[c] for c in unique])
    if len(unique) < len(spec):          # repeated letters: put the values on diagonals
        renamed, deltas, seen, letters = [], [], set(), iter(spare)
        for c in spec:
            if c in seen:
                new = next(letters)
                renamed.append(new)
                deltas.append((c + new, numpy_like.eye(sizes[c], dtype=g.dtype)))
            else:
                seen.add(c)
                renamed.append(c)
        grad = _einsum(",".join(["".join(unique)] + [d for d, _ in deltas])
                       + "->" + "".join(renamed), grad, *[e for _, e in deltas])
    return numpy_like.ascontiguousarray(grad)


def einsum(subscripts, *operands, **kwargs):
    """Einstein summation over ``operands`` (NumPy's notation, ellipses and implicit
    output included); differentiable in every operand."""
    arrays = [data_of(o) for o in operands]
    arrays = [a if hasattr(a, "ndim") else xp().asarray(a) for a in arrays]
    specs, out, spare = _parse(subscripts, arrays)
    spec = ",".join("".join(s) for s in specs) + "->" + "".join(out)
    result = _einsum(spec, *arrays)

    def backward(g, needs):
        return [unbroadcast(_operand_gradient(g, i, specs, out, arrays, spare),
                            arrays[i].shape) if need else None
                for i, need in enumerate(needs)]

    return record(xp().asarray(result), tuple(operands), backward, "einsum")


def tensordot(x1, x2, axes=2):
    """Sum of products over ``axes`` of ``x1`` and ``x2`` (an int: the last ``axes`` of x1
    with the first of x2; or a pair of axis lists)."""
    a, b = data_of(x1), data_of(x2)
    if isinstance(axes, int):
        axes_a, axes_b = list(range(a.ndim - axes, a.ndim)), list(range(axes))
    else:
        axes_a, axes_b = ([axes[0]] if isinstance(axes[0], int) else list(axes[0]),
                          [axes[1]] if isinstance(axes[1], int) else list(axes[1]))
    axes_a = [ax % a.ndim for ax in axes_a]
    axes_b = [ax % b.ndim for ax in axes_b]
    free_a = [i for i in range(a.ndim) if i not in axes_a]
    free_b = [i for i in range(b.ndim) if i not in axes_b]
    summed = 1
    for ax in axes_a:
        summed *= a.shape[ax]
    left = reshape(transpose(x1, free_a + axes_a), (-1, summed))
    right = reshape(transpose(x2, axes_b + free_b), (summed, -1))
    shape = [a.shape[i] for i in free_a] + [b.shape[i] for i in free_b]
    return reshape(matmul(left, right), shape)


def dot(x1, x2):
    """NumPy's ``dot``: products for scalars, ``matmul`` up to 2-d, else a sum over the
    last axis of ``x1`` and the second-to-last of ``x2``."""
    a, b = data_of(x1), data_of(x2)
    if getattr(a, "ndim", 0) == 0 or getattr(b, "ndim", 0) == 0:
        return multiply(x1, x2)
    if b.ndim <= 2:
        return matmul(x1, x2)
    return tensordot(x1, x2, axes=([-1], [-2]))


def inner(x1, x2):
    """Sum of products over the last axes of ``x1`` and ``x2`` (products for scalars)."""
    if getattr(data_of(x1), "ndim", 0) == 0 or getattr(data_of(x2), "ndim", 0) == 0:
        return multiply(x1, x2)
    return tensordot(x1, x2, axes=([-1], [-1]))


def outer(x1, x2):
    """The outer product of the flattened ``x1`` and ``x2``."""
    return multiply(reshape(x1, (-1, 1)), reshape(x2, (1, -1)))


def vdot(x1, x2):
    """The dot product of the flattened ``x1`` and ``x2``."""
    return reduce_sum(multiply(ravel(x1), ravel(x2)))


def kron(x1, x2):
    """The Kronecker product: blocks ``x1[i, j] * x2``."""
    a, b = data_of(x1), data_of(x2)
    ndim = max(a.ndim, b.ndim)
    shape_a = (1,) * (ndim - a.ndim) + tuple(a.shape)
    shape_b = (1,) * (ndim - b.ndim) + tuple(b.shape)
    left = reshape(x1, [n for s in shape_a for n in (s, 1)])
    right = reshape(x2, [n for s in shape_b for n in (1, s)])
    return reshape(multiply(left, right), [sa * sb for sa, sb in zip(shape_a, shape_b)])


def cross(x1, x2, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """Cross product of 2- or 3-vectors along ``axisa``/``axisb`` (``axis`` sets all
    three); 2-vectors give the z component only, as NumPy."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = moveaxis(x1, axisa, -1), moveaxis(x2, axisb, -1)
    sizes = (data_of(a).shape[-1], data_of(b).shape[-1])
    if any(s not in (2, 3) for s in sizes):
        raise ValueError(f"cross: vectors must have 2 or 3 components, got {sizes}")

    def part(v, i, size):
        return getitem(v, (Ellipsis, i)) if i < size else 0.0

    a0, a1, a2 = (part(a, i, sizes[0]) for i in range(3))
    b0, b1, b2 = (part(b, i, sizes[1]) for i in range(3))
    z = subtract(multiply(a0, b1), multiply(a1, b0))
    if sizes == (2, 2):
        return z
    x_part = subtract(multiply(a1, b2), multiply(a2, b1))
    y_part = subtract(multiply(a2, b0), multiply(a0, b2))
    return moveaxis(stack([x_part, y_part, z], axis=-1), -1, axisc)


"""Tensor products in ``lamina.ops`` (``backends/ops/products.py``): ``einsum`` (explicit,
implicit, ellipses, repeated and operand-only indices), ``tensordot``, ``dot``, ``inner``,
``outer``, ``vdot``, ``kron`` and ``cross``, with finite-difference gradients, every engine."""

import numpy as np
import pytest

from lamina import ops

RNG = np.random.default_rng(29)


def rand(*shape):
    return np.asarray(RNG.uniform(-2.0, 2.0, size=shape))


EINSUMS = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),                  # implicit output
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 2)]),
    ("ij->j", [(3, 4)]),                          # summed in the only operand
    ("ij->", [(3, 4)]),
    ("ii->i", [(3, 3)]),                          # diagonal
    ("ii", [(3, 3)]),                             # trace
    ("i,i->", [(4,), (4,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("btnh,bsnh->bnts", [(2, 3, 2, 4), (2, 5, 2, 4)]),
    ("iij,jk->ik", [(3, 3, 2), (2, 4)]),
]


@pytest.mark.parametrize("spec,shapes", EINSUMS, ids=[s for s, _ in EINSUMS])
def test_einsum(check_op, spec, shapes):
    check_op(lambda *xs: ops.einsum(spec, *xs), [rand(*s) for s in shapes],
             reference=lambda *xs: np.einsum(spec, *xs))


@pytest.mark.parametrize("axes", [2, 1, 0, ([1, 0], [0, 1]), ([2], [0])], ids=str)
def test_tensordot(check_op, axes):
    a, b = rand(3, 4, 2), rand(4, 2, 3) if axes in (2, ([1, 0], [0, 1])) else rand(2, 3)
    if axes == 1:
        b = rand(2, 3)
    if axes == ([1, 0], [0, 1]):
        a, b = rand(3, 4, 2), rand(4, 3, 2)
    check_op(lambda x, y: ops.tensordot(x, y, axes=axes), [a, b],
             reference=lambda x, y: np.tensordot(x, y, axes=axes))


@pytest.mark.parametrize("shapes", [((3,), (3,)), ((2, 3), (3, 4)), ((2, 3, 4), (5, 4, 2)),
                                    ((), (2, 3)), ((3,), (3, 2))], ids=str)
def test_dot(check_op, shapes):
    check_op(ops.dot, [rand(*shapes[0]), rand(*shapes[1])], reference=np.dot)


def test_inner_outer_vdot_kron(check_op):
    check_op(ops.inner, [rand(2, 3), rand(4, 3)], reference=np.inner)
    check_op(ops.inner, [rand(3), rand(3)], reference=np.inner)
    check_op(ops.outer, [rand(3), rand(2, 2)], reference=np.outer)
    check_op(ops.vdot, [rand(2, 3), rand(6)], reference=np.vdot)
    check_op(ops.kron, [rand(2, 3), rand(3, 2)], reference=np.kron)
    check_op(ops.kron, [rand(2), rand(2, 3)], reference=np.kron)


@pytest.mark.filterwarnings("ignore:Arrays of 2-dimensional vectors:DeprecationWarning")
@pytest.mark.parametrize("sizes", [(3, 3), (2, 2), (2, 3), (3, 2)], ids=str)
def test_cross(check_op, sizes):
    check_op(ops.cross, [rand(4, sizes[0]), rand(4, sizes[1])], reference=np.cross)


def test_cross_axes(check_op):
    check_op(lambda a, b: ops.cross(a, b, axis=0), [rand(3, 4), rand(3, 4)],
             reference=lambda a, b: np.cross(a, b, axis=0))
    check_op(lambda a, b: ops.cross(a, b, axisa=0, axisb=1, axisc=0), [rand(3, 4), rand(4, 3)],
             reference=lambda a, b: np.cross(a, b, axisa=0, axisb=1, axisc=0))
    with pytest.raises(ValueError, match="2 or 3"):
        ops.cross(rand(4), rand(4))

"""Shape ops in ``lamina.ops`` (``backends/ops/shape.py``): reshape, transpose and axis moves,
broadcasting, flips and rolls, tiling and repeating, joins, splits, basic indexing, padding."""

import numpy as np
import pytest

import lamina
from lamina import ops

RNG = np.random.default_rng(11)


def rand(*shape):
    """Float64 test data, standard normal."""
    return np.asarray(RNG.standard_normal(shape))


def test_reshape(check_op):
    check_op(lambda x: ops.reshape(x, (4, 6)), [rand(2, 3, 4)],
             reference=lambda x: x.reshape(4, 6))
    check_op(lambda x: ops.reshape(x, (-1, 3)), [rand(2, 3, 2)],
             reference=lambda x: x.reshape(-1, 3))
    check_op(lambda x: x.reshape(3, 2), [rand(6)], reference=lambda x: x.reshape(3, 2))


@pytest.mark.parametrize("axes", [None, (1, 0, 2), (2, 0, 1), (0, 2, 1)], ids=str)
def test_transpose(check_op, axes):
    check_op(lambda x: ops.transpose(x, axes), [rand(2, 3, 4)],
             reference=lambda x: np.transpose(x, axes))


def test_transpose_property(check_op):
    check_op(lambda x: x.T, [rand(2, 3)], reference=lambda x: x.T)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_expand_dims(check_op, axis):
    check_op(lambda x: ops.expand_dims(x, axis), [rand(2, 3)],
             reference=lambda x: np.expand_dims(x, axis))


@pytest.mark.parametrize("axis", [None, 1, (1, 3)], ids=str)
def test_squeeze(check_op, axis):
    check_op(lambda x: ops.squeeze(x, axis), [rand(2, 1, 3, 1)],
             reference=lambda x: np.squeeze(x, axis))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concatenate(check_op, axis):
    shapes = [[2, 3, 2], [2, 3, 2], [2, 3, 2]]
    for shape, extra in zip(shapes, (1, 2, 3)):
        shape[axis] = extra
    check_op(lambda a, b, c: ops.concatenate([a, b, c], axis=axis),
             [rand(*s) for s in shapes],
             reference=lambda a, b, c: np.concatenate([a, b, c], axis=axis))


def test_concatenate_with_constant(check_op):
    constant = [[1.0], [1.0]]  # Python data becomes floatx()
    check_op(lambda a: ops.concatenate([constant, a], axis=1), [rand(2, 3)],
             reference=lambda a: np.concatenate([constant, a], axis=1))


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_stack(check_op, axis):
    check_op(lambda a, b: ops.stack([a, b], axis=axis), [rand(2, 3), rand(2, 3)],
             reference=lambda a, b: np.stack([a, b], axis=axis))


@pytest.mark.parametrize("sections,axis", [(3, 0), (2, 1), ([1, 3], -1)], ids=str)
def test_split(check_op, sections, axis):
    pieces_count = len(np.split(np.zeros((6, 4, 5)), sections, axis=axis))
    outputs = check_op(lambda x: ops.split(x, sections, axis=axis), [rand(6, 4, 5)],
                       reference=lambda x: np.split(x, sections, axis=axis))
    assert len(outputs) == pieces_count


def test_split_only_one_piece_used(engine):
    x = lamina.Tensor(rand(4, 2), requires_grad=True)
    first, _ = ops.split(x, 2, axis=0)
    (gx,) = lamina.grad(ops.sum(first * 3.0), [x])
    np.testing.assert_array_equal(gx.numpy(), [[3, 3], [3, 3], [0, 0], [0, 0]])


@pytest.mark.parametrize("indices,axis", [
    ([2, 0, 2, 1], 0),
    ([[1, 1], [0, 2]], 0),
    ([3, 0, 0], 1),
    ([1, 1, 0], -1),
    ([5, 0, 5, 11], None),
], ids=str)
def test_take(check_op, indices, axis):
    indices = np.array(indices)
    check_op(lambda x: ops.take(x, indices, axis=axis), [rand(3, 4)],
             reference=lambda x: np.take(x, indices, axis=axis))
    check_op(lambda x: ops.take(x, indices, axis=axis), [rand(3, 4, 2)],
             reference=lambda x: np.take(x, indices, axis=axis))


def test_take_repeated_indices_accumulate(engine):
    x = lamina.Tensor(np.zeros((3, 2)), requires_grad=True)
    (gx,) = lamina.grad(ops.sum(ops.take(x, np.array([1, 1, 1, 2]), axis=0)), [x])
    np.testing.assert_array_equal(gx.numpy(), [[0, 0], [3, 3], [1, 1]])


BASIC_INDICES = [
    (1,),
    (slice(1, 3),),
    (slice(None, None, -1),),
    (Ellipsis, 0),
    (slice(None), None, 2),
    (-1, slice(0, 4, 2)),
]


@pytest.mark.parametrize("index", BASIC_INDICES, ids=str)
def test_getitem_basic(check_op, index):
    check_op(lambda x: x[index], [rand(3, 4, 5)], reference=lambda x: x[index])


ADVANCED_INDICES = [
    np.array([0, 2, 2]),
    (np.array([0, 1, 1]), np.array([3, 0, 3])),
    (slice(None), np.array([1, 1, 0])),
    np.array([True, False, True]),
    "mask",
]


@pytest.mark.parametrize("index", ADVANCED_INDICES, ids=["int", "int-pair", "slice-int",
                                                           "bool-row", "bool-mask"])
def test_getitem_advanced(check_op, index):
    x = rand(3, 4)
    if isinstance(index, str):
        index = x > 0
    check_op(lambda v: ops.getitem(v, index), [x], reference=lambda v: v[index])


def test_getitem_with_tensor_index(engine):
    x = lamina.Tensor(np.arange(6.0).reshape(3, 2), requires_grad=True)
    picked = x[lamina.Tensor(np.array([2, 2, 0]))]
    np.testing.assert_array_equal(picked.numpy(), [[4, 5], [4, 5], [0, 1]])
    (gx,) = lamina.grad(ops.sum(picked), [x])
    np.testing.assert_array_equal(gx.numpy(), [[1, 1], [0, 0], [2, 2]])


@pytest.mark.parametrize("width", [1, ((1, 2), (0, 3)), ((0, 0), (2, 0))], ids=str)
def test_pad(check_op, width):
    check_op(lambda x: ops.pad(x, width), [rand(2, 3)], reference=lambda x: np.pad(x, width))
    check_op(lambda x: ops.pad(x, width, constant_values=1.5), [rand(2, 3)],
             reference=lambda x: np.pad(x, width, constant_values=1.5))


def test_pad_reflect_values(engine):
    x = np.arange(4.0).reshape(2, 2)
    out = ops.pad(x, ((0, 0), (1, 1)), mode="reflect")
    np.testing.assert_array_equal(out.numpy(), np.pad(x, ((0, 0), (1, 1)), mode="reflect"))


def test_shape(engine):
    assert ops.shape(lamina.Tensor(np.zeros((2, 0, 3)))) == (2, 0, 3)
    assert ops.shape(np.zeros(5)) == (5,)


@pytest.mark.parametrize("source,destination", [(0, -1), (2, 0), ((0, 1), (2, 0)), (-1, 1)],
                         ids=str)
def test_moveaxis(check_op, source, destination):
    check_op(lambda x: ops.moveaxis(x, source, destination), [rand(2, 3, 4)],
             reference=lambda x: np.moveaxis(x, source, destination))


def test_swapaxes_ravel_broadcast_to(check_op):
    check_op(lambda x: ops.swapaxes(x, 0, 2), [rand(2, 3, 4)],
             reference=lambda x: np.swapaxes(x, 0, 2))
    check_op(ops.ravel, [rand(2, 3)], reference=np.ravel)
    check_op(lambda x: ops.broadcast_to(x, (2, 3, 4)), [rand(3, 1)],
             reference=lambda x: np.broadcast_to(x, (2, 3, 4)))


@pytest.mark.parametrize("axis", [None, 0, (1, 2), -1], ids=str)
def test_flip(check_op, axis):
    check_op(lambda x: ops.flip(x, axis), [rand(2, 3, 4)], reference=lambda x: np.flip(x, axis))


def test_fliplr_flipud_rot90(check_op):
    check_op(ops.fliplr, [rand(2, 3)], reference=np.fliplr)
    check_op(ops.flipud, [rand(2, 3)], reference=np.flipud)
    for k in (1, 2, -1):
        check_op(lambda x: ops.rot90(x, k), [rand(2, 3)], reference=lambda x: np.rot90(x, k))
    check_op(lambda x: ops.rot90(x, 1, axes=(1, 2)), [rand(2, 3, 4)],
             reference=lambda x: np.rot90(x, 1, axes=(1, 2)))


@pytest.mark.parametrize("shift,axis", [(1, None), (-2, 1), ((1, 2), (0, 1))], ids=str)
def test_roll(check_op, shift, axis):
    check_op(lambda x: ops.roll(x, shift, axis), [rand(3, 4)],
             reference=lambda x: np.roll(x, shift, axis))


@pytest.mark.parametrize("repeats", [2, (2, 1), (1, 2, 3), (3, 1, 2, 1)], ids=str)
def test_tile(check_op, repeats):
    check_op(lambda x: ops.tile(x, repeats), [rand(2, 3)], reference=lambda x: np.tile(x, repeats))


@pytest.mark.parametrize("repeats,axis", [(2, None), (3, 0), ([1, 0, 2], 1), (2, -1)], ids=str)
def test_repeat(check_op, repeats, axis):
    check_op(lambda x: ops.repeat(x, repeats, axis), [rand(2, 3)],
             reference=lambda x: np.repeat(x, repeats, axis))


def test_joins(check_op):
    check_op(lambda a, b: ops.append(a, b), [rand(2, 2), rand(3)],
             reference=lambda a, b: np.append(a, b))
    check_op(lambda a, b: ops.append(a, b, axis=0), [rand(2, 3), rand(1, 3)],
             reference=lambda a, b: np.append(a, b, axis=0))
    for op, reference in [(ops.hstack, np.hstack), (ops.vstack, np.vstack),
                          (ops.dstack, np.dstack)]:
        check_op(lambda a, b: op([a, b]), [rand(3), rand(3)],
                 reference=lambda a, b: reference([a, b]))
        check_op(lambda a, b: op([a, b]), [rand(2, 3), rand(2, 3)],
                 reference=lambda a, b: reference([a, b]))


@pytest.mark.parametrize("sections", [3, [1, 4]], ids=str)
def test_splits(check_op, sections):
    x = rand(4, 6, 5)
    for op, reference in [(ops.hsplit, np.hsplit), (ops.vsplit, np.vsplit),
                          (ops.dsplit, np.dsplit)]:
        if isinstance(sections, int) and x.shape[{ops.hsplit: 1, ops.vsplit: 0,
                                                    ops.dsplit: 2}[op]] % sections:
            continue
        check_op(lambda v: op(v, sections), [x], reference=lambda v: reference(v, sections))
    check_op(lambda v: ops.array_split(v, 4, axis=2), [x],
             reference=lambda v: np.array_split(v, 4, axis=2))
    check_op(lambda v: ops.hsplit(v, 2), [rand(6)], reference=lambda v: np.hsplit(v, 2))


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_unstack(check_op, axis):
    outputs = check_op(lambda x: ops.unstack(x, axis=axis), [rand(2, 3, 4)],
                       reference=lambda x: list(np.moveaxis(x, axis, 0)))
    assert len(outputs) == rand(2, 3, 4).shape[axis]
    with pytest.raises(ValueError, match="num=5"):
        ops.unstack(rand(2, 3), num=5)

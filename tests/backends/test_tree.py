"""lamina.tree against Keras 3.15's keras.tree (its optree rules: the jax/tensorflow/numpy
backends' implementation). The expected values were printed by real Keras with

    KERAS_BACKEND=torch python -c "
    from keras.src.tree import tree_api, optree_impl; tree_api.tree_impl = optree_impl
    from keras import tree; print(tree.flatten(...), tree.flatten_with_path(...), ...)"

(``map_structure_up_to`` follows Keras' documented examples, which its torch
implementation prints: the optree one rejects ``None`` shallow leaves.)
"""

import collections
import time

import numpy as np
import pytest

from lamina import tree

P = collections.namedtuple("P", ["b", "a"])


class TupleSubclass(tuple):
    pass


class ListSubclass(list):
    pass


class DictSubclass(dict):
    pass


ORDERED = collections.OrderedDict([("z", 1), ("a", 2)])
DEFAULT = collections.defaultdict(int, {"z": 1, "a": 2})

# name -> (structure, is_nested, flatten, flatten_with_path), as Keras printed them
CASES = {
    "none": (None, False, [None], [((), None)]),
    "one-tuple": ((1,), True, [1], [((0,), 1)]),
    "nested-list": ([[1]], True, [1], [((0, 0), 1)]),
    "dict": ({"b": 1, "a": [2, None]}, True, [2, None, 1],
             [(("a", 0), 2), (("a", 1), None), (("b",), 1)]),
    "namedtuple": (P(1, (2, 3)), True, [1, 2, 3], [((0,), 1), ((1, 0), 2), ((1, 1), 3)]),
    "ordered": (ORDERED, True, [1, 2], [(("z",), 1), (("a",), 2)]),
    "defaultdict": (DEFAULT, True, [2, 1], [(("a",), 2), (("z",), 1)]),
    "deque": (collections.deque([1, 2]), True, [1, 2], [((0,), 1), ((1,), 2)]),
    "tuple-subclass": (TupleSubclass((1, 2)), False, [(1, 2)], [((), (1, 2))]),
    "list-subclass": (ListSubclass([1, 2]), False, [[1, 2]], [((), [1, 2])]),
    "dict-subclass": (DictSubclass(a=1), False, [{"a": 1}], [((), {"a": 1})]),
    "string": ("abc", False, ["abc"], [((), "abc")]),
    "empty-list": ([], True, [], []),
    "empty-dict": ({}, True, [], []),
    "empties": ([(), {}, [None]], True, [None], [((2, 0), None)]),
    "set": ({1, 2}, False, [{1, 2}], [((), {1, 2})]),
    "mixed-keys": ({1: "a", "b": 2, 0.5: 3}, True, [3, "a", 2],
                   [((0.5,), 3), ((1,), "a"), (("b",), 2)]),
    "ordered-in-dict": (collections.OrderedDict([("b", {"z": 1, "y": 2}), ("a", [3])]), True,
                        [2, 1, 3], [(("b", "y"), 2), (("b", "z"), 1), (("a", 0), 3)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_is_nested_flatten_and_paths_match_keras(name):
    structure, nested, flat, paths = CASES[name]
    assert tree.is_nested(structure) is nested
    assert tree.flatten(structure) == flat
    assert tree.flatten_with_path(structure) == paths


@pytest.mark.parametrize("name", sorted(CASES))
def test_pack_sequence_as_inverts_flatten(name):
    structure = CASES[name][0]
    packed = tree.pack_sequence_as(structure, tree.flatten(structure))
    assert type(packed) is type(structure)
    assert packed == structure


def test_struct_sequences_and_arrays():
    assert tree.is_nested(time.gmtime(0)) and tree.flatten(time.gmtime(0))[:3] == [1970, 1, 1]
    assert tree.pack_sequence_as(time.gmtime(0), tree.flatten(time.gmtime(0))) == \
        time.gmtime(0)
    arrays = tree.flatten([np.zeros(2), {"a": np.ones(1)}])
    assert [a.tolist() for a in arrays] == [[0.0, 0.0], [1.0]]
    assert not tree.is_nested(np.zeros(2))


def test_pack_sequence_as_keeps_the_structure_key_order():
    packed = tree.pack_sequence_as({"b": 1, "a": 2}, [10, 20])
    assert packed == {"a": 10, "b": 20} and list(packed) == ["b", "a"]      # Keras: same
    assert tree.pack_sequence_as(ORDERED, [10, 20]) == collections.OrderedDict(
        [("z", 10), ("a", 20)])
    packed = tree.pack_sequence_as(DEFAULT, [10, 20])
    assert packed == {"a": 10, "z": 20} and packed.default_factory is int
    assert tree.pack_sequence_as(P(1, (2, 3)), [7, 8, 9]) == P(b=7, a=(8, 9))
    assert tree.pack_sequence_as(collections.deque([1, 2], maxlen=4), [7, 8]).maxlen == 4
    assert tree.pack_sequence_as([1, 2], (x for x in [5, 6])) == [5, 6]
    assert tree.pack_sequence_as([1, 2], "ab") == ["a", "b"]
    assert tree.pack_sequence_as(None, [5]) == 5
    # Keras' docstring examples
    assert tree.pack_sequence_as((("a", "b"), ("c", "d", "e"), "f"), [1.0, 2.0, 3.0, 4.0,
                                                                     5.0, 6.0]) == \
        ((1.0, 2.0), (3.0, 4.0, 5.0), 6.0)
    assert tree.pack_sequence_as({"key3": {"c": ("alpha", "beta"), "a": ("gamma")},
                                  "key1": {"e": "val1", "d": "val2"}},
                                 ["val2", "val1", 3.0, 1.0, 2.0]) == \
        {"key3": {"c": (1.0, 2.0), "a": 3.0}, "key1": {"e": "val1", "d": "val2"}}


@pytest.mark.parametrize("structure, flat, error", [
    ([1, 2], [1], ValueError), ([1], [1, 2], ValueError), ({"a": 1}, [1, 2], ValueError),
    (1, 5, TypeError), ([1], 5, TypeError)])
def test_pack_sequence_as_rejects_a_wrong_sequence(structure, flat, error):
    with pytest.raises(error):
        tree.pack_sequence_as(structure, flat)


def test_map_structure_matches_keras():
    assert tree.map_structure(lambda v: v ** 2, [[1], [2], [3]]) == [[1], [4], [9]]
    assert tree.map_structure(lambda x, y: x * y, [[1], [2]], [[1], [2]]) == [[1], [4]]
    assert tree.map_structure(lambda v: v * 2, P(a=1, b=2)) == P(a=2, b=4)
    assert tree.map_structure(lambda x: x, {"b": 1, "a": 2}) == {"b": 1, "a": 2}
    assert tree.map_structure(lambda x: 0, [None, 1], none_is_leaf=False) == [None, 0]
    assert tree.map_structure(lambda x: 0, [None, 1]) == [0, 0]
    assert tree.map_structure(lambda x, y: x + y, [1, (2,)], [3, (4,)]) == [4, (6,)]
    assert tree.map_structure(lambda a, b: 1, 1, 2) == 1
    # dict kinds are one kind: leaves meet by key, the first structure's type and order win
    assert tree.map_structure(lambda a, b: (a, b), {"a": 1, "b": 2}, collections.OrderedDict(
        [("b", 3), ("a", 4)])) == {"a": (1, 4), "b": (2, 3)}
    mapped = tree.map_structure(lambda a, b: (a, b), collections.OrderedDict(
        [("b", 3), ("a", 4)]), {"a": 1, "b": 2})
    assert type(mapped) is collections.OrderedDict and list(mapped.items()) == [
        ("b", (3, 2)), ("a", (4, 1))]


@pytest.mark.parametrize("structures, kwargs", [
    (([1, 2], [1, [2]]), {}), (([1, 2], (1, 2)), {}), ((1, [1]), {}), (([1], 1), {}),
    (([None, 2], [3, 2]), {"none_is_leaf": False}),
    (([3, 2], [None, 2]), {"none_is_leaf": False}),
    (({"a": 1}, {"b": 1}), {})])
def test_map_structure_rejects_different_structures(structures, kwargs):
    with pytest.raises(ValueError, match="same nested structure"):
        tree.map_structure(lambda *leaves: 0, *structures, **kwargs)


def test_map_structure_argument_errors():
    with pytest.raises(ValueError, match="at least one structure"):
        tree.map_structure(lambda a: a)
    with pytest.raises(TypeError):
        tree.map_structure(None, [1])
    with pytest.raises(TypeError):
        tree.traverse(None, [1])


def test_map_structure_up_to_matches_keras_examples():
    assert tree.map_structure_up_to([None, None], len, [[1, 1], [2, 2]]) == [2, 2]
    assert tree.map_structure_up_to([None, [None, None]], str, [[1, 1], [2, 2]]) == \
        ["[1, 1]", ["2", "2"]]
    assert tree.map_structure_up_to({"a": None}, lambda x, y: (x, y), {"a": [1]},
                                    {"a": [2]}) == {"a": ([1], [2])}
    with pytest.raises(ValueError, match="same nested structure"):
        tree.map_structure_up_to([None, [None]], str, [[1, 1], 2])
    with pytest.raises(ValueError, match="at least one structure"):
        tree.map_structure_up_to([None], str)


# (a, b, assert_same_structure passes, assert_same_paths passes), as Keras answered
SAME = [
    ([1], (1,), False, True),
    ({"a": 1}, ORDERED, False, False),
    (P(1, 2), (1, 2), False, True),
    ([1, [2]], [1, 2], False, False),
    ([1, 2], [1, 2, 3], False, False),
    (DEFAULT, {"a": 1, "z": 2}, True, True),
    ({"a": 1}, {"b": 1}, False, False),
    (None, 1, True, True),
    ([None], [[1]], False, False),
    (collections.deque([1]), [1], False, True),
    (1, [1], False, False),
    ({"a": [1, 2]}, {"a": (3, 4)}, False, True),
    (P(1, 2), collections.namedtuple("P", ["b", "a"])(1, 2), False, True),
]


@pytest.mark.parametrize("a, b, same_structure, same_paths", SAME)
def test_assert_same_structure_and_paths_match_keras(a, b, same_structure, same_paths):
    for check, passes in ((tree.assert_same_structure, same_structure),
                          (tree.assert_same_paths, same_paths)):
        if passes:
            check(a, b)
        else:
            with pytest.raises(ValueError):
                check(a, b)


def test_assert_same_paths_message_names_the_paths():
    with pytest.raises(ValueError, match=r"Paths in `a` missing in `b`:\n\{\(1, 1\)\}"):
        tree.assert_same_paths([1, [2, 3]], [1, [2]])


def test_check_types_is_deprecated():
    with pytest.warns(DeprecationWarning, match="deprecated"):
        tree.assert_same_structure([1, 2], [1, 2], check_types=False)


def test_traverse_matches_keras():
    visited = []
    structure = [(1, 2), [3], {"a": 4}]
    assert tree.traverse(visited.append, structure, top_down=True) == structure
    assert visited == [structure, (1, 2), 1, 2, [3], 3, {"a": 4}, 4]
    visited = []
    assert tree.traverse(visited.append, structure, top_down=False) == structure
    assert visited == [1, 2, (1, 2), 3, [3], 4, {"a": 4}, structure]
    assert tree.traverse(lambda x: tree.MAP_TO_NONE if isinstance(x, tuple) else None,
                         [(1, 2), [3]]) == [None, [3]]
    doubled = tree.traverse(lambda x: x * 2 if isinstance(x, int) else None,
                            {"b": [1], "a": P(2, 3)}, top_down=False)
    assert doubled == {"b": [2], "a": P(b=4, a=6)} and list(doubled) == ["b", "a"]
    assert tree.traverse(lambda x: None, 1) == 1


def test_lists_to_tuples_and_map_shape_structure():
    assert tree.lists_to_tuples([1, [2, {"a": [3]}], (4, [5])]) == (1, (2, {"a": (3,)}),
                                                                     (4, (5,)))
    assert tree.lists_to_tuples({"b": [1, [2]], "a": collections.deque([[3]])}) == \
        {"b": (1, (2,)), "a": collections.deque([(3,)])}
    shapes = {"x": (None, 3), "y": [[1, 2], (4,)], "z": []}
    assert tree.map_shape_structure(lambda s: ("S", s), shapes) == \
        {"x": ("S", (None, 3)), "y": [("S", [1, 2]), ("S", (4,))], "z": ("S", [])}
    with pytest.raises(TypeError):                       # a non-shape leaf reaches func
        tree.map_shape_structure(len, [(1, None), 5])

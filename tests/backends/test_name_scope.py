"""``name_scope``: the paths of variables created inside (Keras 3's values, from
``keras.name_scope`` in Keras 3.15.1), its nesting, deduplication and thread locality."""

import threading

import numpy as np
import pytest

import lamina
from lamina.backends.name_scope import current_path, name_scope


def test_variable_and_weight_paths_under_nested_scopes():
    # Keras 3.15.1: outer/v outer/dense/kernel outer/inner/w, then a/a/x
    with lamina.name_scope("outer"):
        v = lamina.Variable(np.float32(1.0), name="v")
        dense = lamina.layers.Dense(2, name="dense")
        dense.build((None, 3))
        with lamina.name_scope("inner") as scope:
            assert scope.name == "inner"
            w = lamina.Variable(np.float32(1.0), name="w")
    assert (v.path, dense.kernel.path, w.path) == ("outer/v", "outer/dense/kernel",
                                                   "outer/inner/w")
    with name_scope("a"), name_scope("a"):
        assert lamina.Variable(np.float32(1.0), name="x").path == "a/a/x"
    assert current_path() == ""
    assert lamina.Variable(np.float32(1.0), name="plain").path == "plain"


def test_the_same_caller_and_name_is_not_entered_twice():
    caller = object()
    with name_scope("block", caller=caller):
        with name_scope("block", caller=caller):
            assert current_path() == "block"
        with name_scope("block", caller=caller, deduplicate=False):
            assert current_path() == "block/block"
        with name_scope("block", caller=object()):
            assert current_path() == "block/block"
        assert current_path() == "block"


def test_override_parent_replaces_the_enclosing_path():
    with name_scope("outer"), name_scope("leaf", override_parent="model/head"):
        assert current_path() == "model/head/leaf"


def test_scopes_belong_to_their_thread():
    seen = []
    with name_scope("main"):
        worker = threading.Thread(target=lambda: seen.append(current_path()))
        worker.start()
        worker.join()
    assert seen == [""]


@pytest.mark.parametrize("name", ["a/b", 3, None])
def test_a_name_must_be_a_string_without_a_slash(name):
    with pytest.raises(ValueError, match="cannot contain character `/`"):
        name_scope(name)

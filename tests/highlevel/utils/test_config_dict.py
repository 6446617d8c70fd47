"""lamina.utils.Config against keras.utils.Config (Keras 3.15 printed the expected values
for the same calls: ``c = Config(b=1, a=2); c.z = 3; c["y"] = [1]; print(list(c), ...)``)."""

import copy
import pickle

import pytest

from lamina.utils import Config


def make():
    config = Config(b=1, a=2)
    config.z = 3
    config["y"] = [1]
    return config


def test_attribute_and_item_access_as_keras():
    config = make()
    assert list(config) == ["a", "b", "y", "z"]                 # iteration: sorted keys
    assert list(config.keys()) == ["b", "a", "z", "y"]          # the views: insertion order
    assert config.to_json() == '{"b": 1, "a": 2, "z": 3, "y": [1]}'
    assert repr(config) == "<Config {'b': 1, 'a': 2, 'z': 3, 'y': [1]}>"
    assert len(config) == 4 and "a" in config and "q" not in config
    assert config.get("q", 5) == 5 and config.get("a") == 2
    assert config.as_dict() == {"b": 1, "a": 2, "z": 3, "y": [1]}
    assert config.z == config["z"] == 3 and config.y == [1]
    assert dict(config.items()) == config.as_dict() and list(config.values())[0] == 1
    config.as_dict()["b"] = 100                                  # a copy
    assert config.b == 1
    config.update(c=4)
    assert config.pop("c") == 4
    del config["y"]
    assert "y" not in config


def test_unknown_attributes_suggest_a_close_name():
    config = Config(learning_rate=0.1)
    with pytest.raises(AttributeError, match=r"Unknown attribute: 'learning_rat'\. Did you "
                                             r"mean 'learning_rate'\?"):
        config.learning_rat  # noqa: B018
    with pytest.raises(AttributeError, match=r"^Unknown attribute: 'zz'\.$"):
        config.zz  # noqa: B018


def test_freeze_forbids_every_change():
    config = make()
    config.freeze()
    assert config.frozen
    for change in (lambda: setattr(config, "k", 1), lambda: config.__setitem__("k", 1),
                   lambda: config.pop("a"), lambda: config.update(a=1),
                   lambda: config.__delitem__("a")):
        with pytest.raises(ValueError, match="the config is frozen"):
            change()
    with pytest.raises(AttributeError):
        config.frozen = False
    assert config.as_dict() == {"b": 1, "a": 2, "z": 3, "y": [1]}
    config.unfreeze()
    config.pop("a")
    assert dict(config.items()) == {"b": 1, "z": 3, "y": [1]}


def test_copies_and_pickles():
    config = make()
    for again in (copy.deepcopy(config), pickle.loads(pickle.dumps(config))):
        assert again.as_dict() == config.as_dict() and not again.frozen

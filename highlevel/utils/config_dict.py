"""``Config`` as ``keras.utils.Config``: a dict of named values read and written as
attributes or items, that can be frozen and written as JSON."""

import copy
import difflib
import json


class Config:
    """A dict-like container of named values, as ``keras.utils.Config``.

    Example:
        >>> config = Config(learning_rate=0.1, momentum=0.9)
        >>> config.use_ema = True          # attribute style
        >>> config["seed"] = 123           # item style
        >>> config.seed, config["learning_rate"]
        (123, 0.1)
        >>> config.freeze()                # from now on, any change raises ValueError
        >>> config.to_json()
        '{"learning_rate": 0.1, "momentum": 0.9, "use_ema": true, "seed": 123}'

    Iterating gives the keys in sorted order (as Keras); ``keys``/``values``/``items``
    keep insertion order.
    """

    def __init__(self, **kwargs):
        object.__setattr__(self, "_config", kwargs)
        object.__setattr__(self, "_frozen", False)

    @property
    def frozen(self):
        """True once :meth:`freeze` was called (and :meth:`unfreeze` was not)."""
        return self._frozen

    def freeze(self):
        """Forbid any further change (setting, updating, popping or deleting entries)."""
        object.__setattr__(self, "_frozen", True)

    def unfreeze(self):
        """Allow changes again."""
        object.__setattr__(self, "_frozen", False)

    def _raise_if_frozen(self):
        if self._frozen:
            raise ValueError("Cannot mutate attribute(s) because the config is frozen.")

    def as_dict(self):
        """A (shallow) copy of the entries as a plain dict."""
        return copy.copy(self._config)

    def to_json(self):
        """The entries as a JSON string."""
        return json.dumps(self._config)

    def keys(self):
        """The entry names."""
        return self._config.keys()

    def values(self):
        """The entry values."""
        return self._config.values()

    def items(self):
        """The ``(name, value)`` pairs."""
        return self._config.items()

    def pop(self, *args):
        """``dict.pop`` on the entries (not when frozen)."""
        self._raise_if_frozen()
        return self._config.pop(*args)

    def update(self, *args, **kwargs):
        """``dict.update`` on the entries (not when frozen)."""
        self._raise_if_frozen()
        return self._config.update(*args, **kwargs)

    def get(self, keyname, value=None):
        """The entry ``keyname``, or ``value`` when there is none."""
        return self._config.get(keyname, value)

    def __setattr__(self, name, value):
        if hasattr(type(self), name):           # the class' own methods and properties
            return object.__setattr__(self, name, value)
        self._raise_if_frozen()
        self._config[name] = value

    def __getattr__(self, name):                # only called for names not found above
        config = object.__getattribute__(self, "_config")
        if name in config:
            return config[name]
        message = f"Unknown attribute: '{name}'."
        closest = difflib.get_close_matches(name, [str(k) for k in config], n=1, cutoff=0.7)
        if closest:
            message += f" Did you mean '{closest[0]}'?"
        raise AttributeError(message)

    def __setitem__(self, key, item):
        self._raise_if_frozen()
        self._config[key] = item

    def __getitem__(self, key):
        return self._config[key]

    def __delitem__(self, key):
        self._raise_if_frozen()
        del self._config[key]

    def __contains__(self, item):
        return item in self._config

    def __iter__(self):
        return iter(sorted(self._config))

    def __len__(self):
        return len(self._config)

    def __repr__(self):
        return f"<Config {self._config}>"

"""Checks of the scalar arguments of ``fit``/``evaluate``/``predict`` (``batch_size``,
``epochs``, ``steps``, ``validation_freq``, ``verbose``), done once per call before any
state changes: a bad value raises ``ValueError`` naming the argument and what was received
instead of silently training nothing (or training with a default)."""

import numbers
import warnings
from typing import Callable, NamedTuple, Optional

from ...backends import config

VERBOSE_VALUES = (0, 1, 2, "auto")


def _is_integer(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _received(name, value):
    return f"Received: {name}={value!r} of type {type(value).__name__}"


def check_count(name, value, minimum=1, allow_none=True):
    """``value`` as an ``int`` >= ``minimum`` (or None when ``allow_none``); else a
    ``ValueError`` naming ``name`` and the value received."""
    if value is None and allow_none:
        return None
    if not _is_integer(value) or value < minimum:
        kind = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"
        raise ValueError(f"`{name}` must be {kind}{' or None' if allow_none else ''}. "
                         f"{_received(name, value)}")
    return int(value)


def check_steps(name, value):
    """``value`` checked as :func:`check_count`, then capped by
    ``lamina.config.max_steps_per_epoch()`` when one is set (a missing ``value`` takes the
    cap), with Keras' warning."""
    steps = check_count(name, value)
    cap = config.max_steps_per_epoch()
    if cap and (not steps or cap < steps):
        warnings.warn(f"Limiting steps_per_epoch to {cap}")
        steps = cap
    return steps


def capped_epochs(epochs):
    """``epochs`` capped by ``lamina.config.max_epochs()`` when one is set (Keras' warning)."""
    cap = config.max_epochs()
    if cap and cap < epochs:
        warnings.warn(f"Limiting epochs to {cap}")
        return cap
    return epochs


def check_verbose(verbose):
    """``verbose`` as 0, 1 or 2 (``"auto"`` is 1); anything else raises ``ValueError``."""
    if isinstance(verbose, str):
        if verbose != "auto":
            raise ValueError(f"`verbose` must be one of {VERBOSE_VALUES}. "
                             f"{_received('verbose', verbose)}")
        return 1
    if not isinstance(verbose, numbers.Integral) or verbose not in (0, 1, 2):
        raise ValueError(f"`verbose` must be one of {VERBOSE_VALUES}. "
                         f"{_received('verbose', verbose)}")
    return int(verbose)


def check_validation_freq(validation_freq):
    """A predicate ``epoch -> bool`` (0-based epoch) for Keras' ``validation_freq``: an
    integer ``n >= 1`` validates every ``n``-th epoch, a list/tuple of 1-based epochs
    validates at those epochs."""
    if isinstance(validation_freq, (list, tuple)):
        epochs = set()
        for item in validation_freq:
            if not _is_integer(item) or item < 1:
                raise ValueError("`validation_freq` as a list must hold 1-based epoch "
                                 f"numbers (integers >= 1). "
                                 f"{_received('validation_freq', validation_freq)}")
            epochs.add(int(item))
        return lambda epoch: epoch + 1 in epochs
    every = check_count("validation_freq", validation_freq, allow_none=False)
    return lambda epoch: (epoch + 1) % every == 0


class FitArguments(NamedTuple):
    """The checked scalar arguments of ``fit``, defaults filled in."""
    batch_size: int
    epochs: int
    verbose: int
    initial_epoch: int
    steps_per_epoch: Optional[int]
    validation_steps: Optional[int]
    validation_batch_size: int
    should_validate: Callable[[int], bool]


def check_fit_arguments(batch_size, epochs, verbose, initial_epoch, steps_per_epoch,
                        validation_steps, validation_batch_size, validation_freq,
                        validating=False):
    """Every scalar argument of ``fit`` checked, as :class:`FitArguments` (``batch_size``
    defaults to 32, ``validation_batch_size`` to ``batch_size``); ``epochs`` and the steps
    capped by ``lamina.config.max_epochs()`` / ``max_steps_per_epoch()`` (the validation
    steps when ``validating``: there is validation data)."""
    batch_size = check_count("batch_size", batch_size) or 32
    return FitArguments(
        batch_size=batch_size,
        epochs=capped_epochs(check_count("epochs", epochs, minimum=0, allow_none=False)),
        verbose=check_verbose(verbose),
        initial_epoch=check_count("initial_epoch", initial_epoch, minimum=0,
                                  allow_none=False),
        steps_per_epoch=check_steps("steps_per_epoch", steps_per_epoch),
        validation_steps=(check_steps if validating else check_count)("validation_steps",
                                                                      validation_steps),
        validation_batch_size=check_count("validation_batch_size",
                                          validation_batch_size) or batch_size,
        should_validate=check_validation_freq(validation_freq))

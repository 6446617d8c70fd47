"""Learning-rate schedules (``keras.optimizers.schedules``).

A schedule maps the optimizer's iteration count (the number of updates already applied,
starting at 0) to a learning rate. Optimizers accept one anywhere a float learning rate
is accepted and evaluate it once per step.

Example:
    >>> from lamina.highlevel import schedules
    >>> lr = schedules.ExponentialDecay(0.1, decay_steps=100, decay_rate=0.5)
    >>> lr(100)
    0.05
"""

import math

from ...backends.registry import Registry

SCHEDULES = Registry("learning rate schedule")


class LearningRateSchedule:
    """Base class: subclasses implement ``__call__(step) -> float`` and ``get_config``."""

    def __call__(self, step):
        raise NotImplementedError(
            f"Learning rate schedule '{type(self).__name__}' must override __call__(step)"
        )

    def get_config(self):
        raise NotImplementedError(
            f"Learning rate schedule '{type(self).__name__}' must override get_config()"
        )

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


def _check_decay_steps(decay_steps):
    if decay_steps <= 0:
        raise ValueError(f"Argument `decay_steps` must be > 0. Received: decay_steps={decay_steps}")


class _DecayRateSchedule(LearningRateSchedule):
    """Shared state of the ``decay_rate`` schedules: ``_progress(step)`` is
    ``step / decay_steps``, floored when ``staircase``."""

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase, name):
        _check_decay_steps(decay_steps)
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name

    def _progress(self, step):
        p = float(step) / self.decay_steps
        return math.floor(p) if self.staircase else p

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "decay_rate": self.decay_rate,
                "staircase": self.staircase, "name": self.name}


@SCHEDULES.register()
class ExponentialDecay(_DecayRateSchedule):
    """``initial_learning_rate * decay_rate ** (step / decay_steps)`` (the exponent floored
    when ``staircase``)."""

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False,
                 name="ExponentialDecay"):
        super().__init__(initial_learning_rate, decay_steps, decay_rate, staircase, name)

    def __call__(self, step):
        return float(self.initial_learning_rate) * float(self.decay_rate) ** self._progress(step)


@SCHEDULES.register()
class PiecewiseConstantDecay(LearningRateSchedule):
    """``values[0]`` while ``step <= boundaries[0]``, ``values[i]`` while
    ``boundaries[i-1] < step <= boundaries[i]``, ``values[-1]`` after the last boundary."""

    def __init__(self, boundaries, values, name="PiecewiseConstant"):
        if len(boundaries) != len(values) - 1:
            raise ValueError(
                "The length of boundaries should be 1 less than the length of values. "
                f"Received: boundaries={boundaries} of length {len(boundaries)}, and "
                f"values={values} of length {len(values)}."
            )
        self.boundaries = list(boundaries)
        self.values = list(values)
        self.name = name

    def __call__(self, step):
        step = float(step)
        for boundary, value in zip(self.boundaries, self.values):
            if step <= boundary:
                return float(value)
        return float(self.values[-1])

    def get_config(self):
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


def _cosine_decayed(fraction, alpha, multiplier=1.0):
    """The cosine factor at ``fraction`` of a period, from ``multiplier`` to ``alpha``."""
    cosine = 0.5 * multiplier * (1.0 + math.cos(math.pi * fraction))
    return (1.0 - alpha) * cosine + alpha


@SCHEDULES.register()
class CosineDecayRestarts(LearningRateSchedule):
    """Cosine decay with warm restarts (SGDR, Loshchilov & Hutter), as Keras: the first
    period lasts ``first_decay_steps``; each restart multiplies the period by ``t_mul`` and
    the initial rate by ``m_mul``; within a period the rate falls from the period's start
    to ``alpha`` times ``initial_learning_rate``.

    Args:
        initial_learning_rate: the rate at step 0.
        first_decay_steps: the length of the first period (> 0).
        t_mul: the factor of each period's length over the previous one's.
        m_mul: the factor of each period's initial rate over the previous one's.
        alpha: the minimum rate, as a fraction of ``initial_learning_rate``.
        name: Keras' name, ``"SGDRDecay"``.
    """

    def __init__(self, initial_learning_rate, first_decay_steps, t_mul=2.0, m_mul=1.0,
                 alpha=0.0, name="SGDRDecay"):
        if first_decay_steps <= 0:
            raise ValueError("Argument `first_decay_steps` must be > 0. Received: "
                             f"first_decay_steps={first_decay_steps}")
        self.initial_learning_rate = initial_learning_rate
        self.first_decay_steps = first_decay_steps
        self.t_mul = t_mul
        self.m_mul = m_mul
        self.alpha = alpha
        self.name = name

    def __call__(self, step):
        fraction = float(step) / self.first_decay_steps
        t_mul = float(self.t_mul)
        if t_mul == 1.0:
            restart = math.floor(fraction)
            fraction -= restart
        else:
            restart = math.floor(math.log(1.0 - fraction * (1.0 - t_mul)) / math.log(t_mul))
            done = (1.0 - t_mul ** restart) / (1.0 - t_mul)
            fraction = (fraction - done) / t_mul ** restart
        return float(self.initial_learning_rate) * _cosine_decayed(
            fraction, float(self.alpha), float(self.m_mul) ** restart)

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "first_decay_steps": self.first_decay_steps, "t_mul": self.t_mul,
                "m_mul": self.m_mul, "alpha": self.alpha, "name": self.name}


@SCHEDULES.register()
class CosineDecay(LearningRateSchedule):
    """Cosine decay from the initial (or warmup target) rate to ``alpha`` times it over
    ``decay_steps``, after an optional linear warmup of ``warmup_steps`` to
    ``warmup_target``."""

    def __init__(self, initial_learning_rate, decay_steps, alpha=0.0, name="CosineDecay",
                 warmup_target=None, warmup_steps=0):
        _check_decay_steps(decay_steps)
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.alpha = alpha
        self.name = name
        self.warmup_target = warmup_target
        self.warmup_steps = warmup_steps

    def _decay(self, step, decay_from):
        return decay_from * _cosine_decayed(step / self.decay_steps, self.alpha)

    def __call__(self, step):
        step = float(step)
        initial = float(self.initial_learning_rate)
        if self.warmup_target is None:
            return self._decay(min(step, self.decay_steps), initial)
        step = min(step, self.decay_steps + self.warmup_steps)
        if step < self.warmup_steps:
            return (float(self.warmup_target) - initial) * step / self.warmup_steps + initial
        return self._decay(step - self.warmup_steps, float(self.warmup_target))

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "alpha": self.alpha, "name": self.name,
                "warmup_target": self.warmup_target, "warmup_steps": self.warmup_steps}


@SCHEDULES.register()
class PolynomialDecay(LearningRateSchedule):
    """Polynomial decay from ``initial_learning_rate`` to ``end_learning_rate`` over
    ``decay_steps`` (with ``cycle``, the horizon grows by multiples of ``decay_steps``)."""

    def __init__(self, initial_learning_rate, decay_steps, end_learning_rate=0.0001,
                 power=1.0, cycle=False, name="PolynomialDecay"):
        _check_decay_steps(decay_steps)
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.end_learning_rate = end_learning_rate
        self.power = power
        self.cycle = cycle
        self.name = name

    def __call__(self, step):
        step = float(step)
        decay_steps = float(self.decay_steps)
        if self.cycle:
            multiplier = 1.0 if step == 0 else math.ceil(step / decay_steps)
            decay_steps *= multiplier
        else:
            step = min(step, decay_steps)
        fraction = step / decay_steps
        initial, end = float(self.initial_learning_rate), float(self.end_learning_rate)
        return (initial - end) * (1.0 - fraction) ** self.power + end

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "end_learning_rate": self.end_learning_rate,
                "power": self.power, "cycle": self.cycle, "name": self.name}


@SCHEDULES.register()
class InverseTimeDecay(_DecayRateSchedule):
    """``initial_learning_rate / (1 + decay_rate * step / decay_steps)`` (floored ratio
    when ``staircase``)."""

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False,
                 name="InverseTimeDecay"):
        super().__init__(initial_learning_rate, decay_steps, decay_rate, staircase, name)

    def __call__(self, step):
        return float(self.initial_learning_rate) / (1.0 + float(self.decay_rate)
                                                    * self._progress(step))


def serialize(schedule):
    """A schedule as Keras 3 serializes it: ``{"module", "class_name", "config",
    "registered_name"}``."""
    return {"module": "keras.optimizers.schedules", "class_name": type(schedule).__name__,
            "config": schedule.get_config(), "registered_name": None}


def deserialize(config, custom_objects=None):
    """Rebuild a schedule from ``serialize``'s dict (or a Keras 2 ``{"class_name",
    "config"}`` dict)."""
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(
            f"cannot deserialize a learning rate schedule from {config!r}: expected a dict "
            "with 'class_name' and 'config'"
        )
    cls = SCHEDULES.lookup(config["class_name"], custom_objects)
    return cls.from_config(dict(config.get("config") or {}))


def get(identifier, custom_objects=None):
    """Resolve a schedule instance or a config dict."""
    if isinstance(identifier, LearningRateSchedule):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier, custom_objects)
    raise ValueError(f"cannot interpret {identifier!r} as a learning rate schedule")


__all__ = ["CosineDecay", "CosineDecayRestarts", "ExponentialDecay", "InverseTimeDecay", "LearningRateSchedule",
           "PiecewiseConstantDecay", "PolynomialDecay", "SCHEDULES", "deserialize", "get",
           "serialize"]

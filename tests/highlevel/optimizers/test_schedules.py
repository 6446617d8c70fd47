"""Learning-rate schedules: their values at given steps, argument checks and serialization."""

import math

import pytest

from lamina.highlevel.optimizers import schedules


def test_schedule_values():
    exp = schedules.ExponentialDecay(1.0, decay_steps=10, decay_rate=0.1)
    assert exp(5) == pytest.approx(0.1 ** 0.5)
    stair = schedules.ExponentialDecay(1.0, decay_steps=10, decay_rate=0.1, staircase=True)
    assert stair(15) == pytest.approx(0.1)
    piece = schedules.PiecewiseConstantDecay([10, 20], [1.0, 0.5, 0.1])
    assert [piece(s) for s in (0, 10, 11, 20, 21)] == [1.0, 1.0, 0.5, 0.5, 0.1]
    cosine = schedules.CosineDecay(1.0, decay_steps=100, alpha=0.1)
    assert cosine(0) == pytest.approx(1.0)
    assert cosine(50) == pytest.approx(0.9 * 0.5 + 0.1)
    assert cosine(500) == pytest.approx(0.1)
    warm = schedules.CosineDecay(0.0, decay_steps=100, warmup_target=1.0, warmup_steps=10)
    assert warm(5) == pytest.approx(0.5)
    assert warm(10) == pytest.approx(1.0)
    assert warm(60) == pytest.approx(0.5 * (1 + math.cos(math.pi * 0.5)))
    with pytest.raises(ValueError, match="decay_steps"):
        schedules.ExponentialDecay(1.0, decay_steps=0, decay_rate=0.5)
    with pytest.raises(ValueError, match="length"):
        schedules.PiecewiseConstantDecay([1, 2], [1.0])
    for schedule in (exp, stair, piece, cosine, warm):
        again = schedules.deserialize(schedules.serialize(schedule))
        assert type(again) is type(schedule) and again.get_config() == schedule.get_config()

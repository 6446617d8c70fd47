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


# CosineDecayRestarts(0.1, 10, **kwargs) at these steps, printed by Keras 3.15:
#   KERAS_BACKEND=torch python -c "from keras.optimizers.schedules import CosineDecayRestarts
#   as C; print([float(C(0.1, 10, **kwargs)(i)) for i in RESTART_STEPS])"
RESTART_STEPS = [0, 1, 5, 9, 10, 11, 25, 29, 30, 31, 69, 70, 100, 250]
RESTART_VALUES = [
    ({}, [0.1, 0.09755283, 0.05, 0.00244718, 0.1, 0.09938442, 0.01464466, 0.00061558, 0.1,
          0.09984586, 0.00015413, 0.1, 0.06913417, 0.03086582]),
    ({"t_mul": 1.0, "m_mul": 0.5, "alpha": 0.1},
     [0.1, 0.09779754, 0.055, 0.01220246, 0.055, 0.05389877, 0.02125, 0.01055061, 0.02125,
      0.02097469, 0.01003441, 0.01070313, 0.01008789, 0.01]),
    ({"t_mul": 3.0, "m_mul": 0.8, "alpha": 0.05},
     [0.1, 0.09767518, 0.0525, 0.00732482, 0.081, 0.08079183, 0.043, 0.027544, 0.024,
      0.02066416, 0.05150955, 0.0506, 0.0202, 0.03354312]),
    # step 25 starts a period (10 + 15): Keras prints 0.0 there, its float32 log putting the
    # restart one period early; lamina computes in float64 and restarts at 0.1
    ({"t_mul": 1.5}, [0.1, 0.09755283, 0.05, 0.00244718, 0.1, 0.09890737, 0.1, 0.0924024,
                      0.08830222, 0.08345654, 0.02913308, 0.025, 0.06980399, 0.06980399]),
]


@pytest.mark.parametrize("kwargs, expected", RESTART_VALUES)
def test_cosine_decay_restarts_matches_keras(kwargs, expected):
    schedule = schedules.CosineDecayRestarts(0.1, 10, **kwargs)
    assert [schedule(step) for step in RESTART_STEPS] == pytest.approx(expected, abs=2e-8)
    again = schedules.deserialize(schedules.serialize(schedule))
    assert type(again) is schedules.CosineDecayRestarts
    assert again.get_config() == schedule.get_config()


def test_cosine_decay_restarts_config_and_checks():
    assert schedules.CosineDecayRestarts(0.1, 10).get_config() == {
        "initial_learning_rate": 0.1, "first_decay_steps": 10, "t_mul": 2.0, "m_mul": 1.0,
        "alpha": 0.0, "name": "SGDRDecay"}                    # Keras' get_config
    with pytest.raises(ValueError, match="first_decay_steps"):
        schedules.CosineDecayRestarts(0.1, 0)

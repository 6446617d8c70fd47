"""split_choice: a warm-up pair, then PROBE_PAIRS split/plain pairs, then the kind with the
smaller median time is kept, per batch size; a step that raised is not counted."""

import gc
import weakref

from lamina import layers
import lamina
from lamina.highlevel.distribution import split_choice
from lamina.highlevel.distribution.split_choice import PROBE_PAIRS, WARMUP_STEPS, SplitChoice


def _probe(choice, rows, split_seconds, plain_seconds):
    """Run the warm-up and probe steps, each as the choice asks; returns the kinds run."""
    kinds = []
    for _ in range(WARMUP_STEPS + 2 * PROBE_PAIRS):
        split = choice.wants_split(rows)
        kinds.append(split)
        choice.record(rows, split, split_seconds if split else plain_seconds)
    return kinds


def test_the_faster_kind_is_kept_after_the_probe():
    choice = SplitChoice()
    kinds = _probe(choice, 32, split_seconds=0.030, plain_seconds=0.036)
    assert kinds == [True, False] * (1 + PROBE_PAIRS)
    assert choice.chosen(32) is True and choice.wants_split(32)
    slow = SplitChoice()
    _probe(slow, 32, split_seconds=0.9e-3, plain_seconds=0.3e-3)
    assert slow.chosen(32) is False and not slow.wants_split(32)
    slow.record(32, True, 0.0)                 # after the choice, steps change nothing
    assert slow.chosen(32) is False


def test_the_warm_up_pair_is_not_counted_and_medians_ignore_one_outlier():
    choice = SplitChoice()
    times = iter([5.0, 0.001] + [0.010, 0.020, 0.011, 0.021, 0.9, 0.019])
    for _ in range(WARMUP_STEPS + 2 * PROBE_PAIRS):
        split = choice.wants_split(8)
        choice.record(8, split, next(times))
    assert choice.chosen(8) is True           # split medians 0.011 against plain 0.020


def test_each_batch_size_is_probed_on_its_own():
    choice = SplitChoice()
    _probe(choice, 32, split_seconds=1.0, plain_seconds=2.0)
    assert choice.chosen(32) is True and choice.chosen(17) is None
    assert choice.wants_split(17)             # the last, smaller batch starts its own probe
    _probe(choice, 17, split_seconds=2.0, plain_seconds=1.0)
    assert choice.chosen(17) is False and choice.chosen(32) is True


def test_a_step_that_raised_is_run_again_as_the_same_kind():
    choice = SplitChoice()
    assert choice.wants_split(4)
    # the split step raised: nothing recorded, so the next step is split again
    assert choice.wants_split(4)
    choice.record(4, True, 0.1)
    assert not choice.wants_split(4)


def test_splits_that_found_the_threads_busy_count_as_plain():
    choice = SplitChoice()
    for _ in range(WARMUP_STEPS + 2 * PROBE_PAIRS):
        choice.wants_split(4)
        choice.record(4, False, 0.1)          # every split attempt ran plainly
    assert choice.chosen(4) is False


def test_a_model_s_choice_goes_with_the_model():
    model = lamina.Sequential([layers.Input((3,)), layers.Dense(2)])
    choice = split_choice.for_model(model)
    assert split_choice.for_model(model) is choice
    other = lamina.Sequential([layers.Input((3,)), layers.Dense(2)])
    assert split_choice.for_model(other) is not choice
    alive = weakref.ref(model)
    del model, choice
    gc.collect()
    assert alive() is None                    # the choices do not keep a model alive

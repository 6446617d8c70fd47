"""``examples/checkpoint_resume.py``: training interrupted and resumed from a checkpoint
ends bit-identical to the uninterrupted run."""

from harness.examples import run_example


def test_checkpoint_resume_example_matches_the_uninterrupted_run():
    out = run_example("checkpoint_resume.py")
    assert "identical to the uninterrupted run: True" in out

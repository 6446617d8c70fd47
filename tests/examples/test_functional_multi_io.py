"""``examples/functional_multi_io.py`` runs and exits 0 (it exits 1 unless both of its
losses fall)."""

from harness.examples import run_example


def test_functional_multi_io_losses_fall():
    out = run_example("functional_multi_io.py")
    assert "first epoch:" in out and "last epoch:" in out
    assert "value_loss" in out and "label_loss" in out and "label_accuracy" in out

"""The checkpoint errors: every class is a documented ``ValueError`` under
``CheckpointError``, also reachable from ``model_file``."""

from lamina.highlevel.saving import errors as checkpoint_errors, model_file as saving
from lamina.highlevel.saving.errors import CheckpointError


def test_error_classes_are_documented_value_errors():
    for name in checkpoint_errors.__all__:
        value = getattr(checkpoint_errors, name)
        if isinstance(value, type):
            assert issubclass(value, CheckpointError) and issubclass(value, ValueError)
            assert value.__doc__
    assert saving.CheckpointError is CheckpointError
